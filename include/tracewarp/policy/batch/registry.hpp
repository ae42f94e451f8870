// The batch scheduling policies by name. A policy is one source file: its class (the
// SchedulingPolicy concept of scheduling.hpp), its keys if it has any, and one registration at
// namespace scope, which adds it to this registry when the program starts:
//
//   struct SjfSettings { std::size_t reserved = 1; };
//   const ParamTable<SjfSettings>& sjf_keys() {
//     static const auto t = ParamTable<SjfSettings>("batch").integer("sjf_reserved", ...);
//     return t;
//   }
//   const RegisteredBatchPolicy sjf("sjf", "shortest job first with backfill", sjf_keys(),
//                                   [](const SjfSettings& s) { return SjfPolicy{s.reserved}; });
//
// The build compiles every file of src/policy/batch/ and examples/policies/ (CMake globs them)
// and links the whole library, so nothing else is edited: `batch.policy` accepts the name,
// `--keys` and docs/configuration.md list the keys, and the tests that iterate over the registry
// (every policy under the rollback check, on 1-4 ranks, ...) cover it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tracewarp/core/config.hpp"
#include "tracewarp/core/params.hpp"
#include "tracewarp/policy/batch/any_policy.hpp"

namespace tracewarp::batch {

// The values of every registered policy's keys (batch.*); each policy reads its own when made.
class PolicySettings {
 public:
  PolicySettings();  // every key at its default
  // The policies' keys read from a configuration, each policy's checked (bounds, choices, a
  // pattern's syntax) whichever policy the run uses, so a bad value stops a run before it starts.
  static PolicySettings read(const Config& config);
  // Sets one key ("interval_pattern" or "batch.interval_pattern"), checked as read() checks it.
  PolicySettings& set(const std::string& key, const ConfigValue& value);
  const Config& values() const { return values_; }
  bool operator==(const PolicySettings& other) const { return values_.values() == other.values_.values(); }

 private:
  Config values_;
};

// The keys of every registered policy, each once (two policies may share a key by declaring it
// in one table: the WRSA policies' wrsa_alpha).
const ConfigSchema& policy_keys();

struct BatchPolicyInfo {
  std::string name;
  std::string description;
  bool contiguous_only = false;                    // plans contiguous node ranges: needs contiguous allocation
  const ConfigSchema* keys = nullptr;              // the keys it reads (null: none)
  std::function<void(const Config&)> check;        // reads its keys, throws ConfigError
  std::function<BatchPolicy(const Config&)> make;  // reads its keys, builds the policy
};
// In name order, whichever order the files registered them.
const std::vector<BatchPolicyInfo>& batch_policies();
std::vector<std::string> batch_policy_names();
const BatchPolicyInfo& find_batch_policy(const std::string& name);  // throws ConfigError
BatchPolicy make_batch_policy(const std::string& name, const PolicySettings& settings = {});

// Adds a policy to the registry (a duplicate name is a program error, reported at start).
void register_batch_policy(BatchPolicyInfo info);

// A policy's registration, one object at namespace scope in the policy's file.
struct RegisteredBatchPolicy {
  // A policy without keys, made by `make()`.
  template <class Make>
  RegisteredBatchPolicy(std::string name, std::string description, Make make, bool contiguous_only = false) {
    register_batch_policy({std::move(name), std::move(description), contiguous_only, nullptr, [](const Config&) {},
                           [make](const Config&) { return BatchPolicy(make()); }});
  }
  // A policy with keys: `keys` reads its settings S (params.hpp), `make(S)` builds it.
  template <class S, class Make>
  RegisteredBatchPolicy(std::string name, std::string description, const ParamTable<S>& keys, Make make,
                        bool contiguous_only = false) {
    register_batch_policy({std::move(name), std::move(description), contiguous_only, &keys.schema(),
                           [&keys](const Config& c) { keys.read(c); },
                           [&keys, make](const Config& c) { return BatchPolicy(make(keys.read(c))); }});
  }
};

}  // namespace tracewarp::batch
