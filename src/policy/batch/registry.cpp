#include "tracewarp/policy/batch/registry.hpp"

#include <algorithm>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/named.hpp"

namespace tracewarp::batch {
namespace {
std::vector<BatchPolicyInfo>& registry() {
  static std::vector<BatchPolicyInfo> all;
  return all;
}
bool& keys_taken() {
  static bool taken = false;
  return taken;
}
}  // namespace

void register_batch_policy(BatchPolicyInfo info) {
  std::vector<BatchPolicyInfo>& all = registry();
  if (keys_taken())  // only static initialisers register, and the keys are read after them
    throw InvariantError("batch policy " + info.name + " registered after the policies' keys were read");
  const auto at = std::lower_bound(all.begin(), all.end(), info.name,
                                   [](const BatchPolicyInfo& p, const std::string& name) { return p.name < name; });
  if (at != all.end() && at->name == info.name)
    throw InvariantError("two batch policies are registered as " + info.name);
  all.insert(at, std::move(info));
}

const std::vector<BatchPolicyInfo>& batch_policies() { return registry(); }

std::vector<std::string> batch_policy_names() { return names_of(batch_policies()); }

const BatchPolicyInfo& find_batch_policy(const std::string& name) {
  return find_named(batch_policies(), name, "batch policy");
}

const ConfigSchema& policy_keys() {
  static const ConfigSchema keys = [] {
    keys_taken() = true;
    ConfigSchema all;
    for (const BatchPolicyInfo& p : batch_policies()) {
      if (p.keys == nullptr) continue;
      for (const ConfigKey& k : *p.keys) {
        const ConfigKey* known = find_config_key(all, k.name);
        if (known == nullptr) {
          all.push_back(k);
        } else if (known->type != k.type || known->default_value != k.default_value) {
          throw InvariantError("batch policies declare " + k.name + " twice, differently: declare it in one table");
        }
      }
    }
    return all;
  }();
  return keys;
}

PolicySettings::PolicySettings() : values_(policy_keys()) {}

PolicySettings PolicySettings::read(const Config& config) {
  PolicySettings s;
  for (const ConfigKey& k : policy_keys()) s.values_.set(k.name, config.values().at(k.name), config.origin_of(k.name));
  for (const BatchPolicyInfo& p : batch_policies()) p.check(s.values_);
  return s;
}

PolicySettings& PolicySettings::set(const std::string& key, const ConfigValue& value) {
  Config changed = values_;  // a refused value leaves the settings as they were
  changed.set(key.starts_with("batch.") ? key : "batch." + key, value, "PolicySettings::set");
  for (const BatchPolicyInfo& p : batch_policies()) p.check(changed);
  values_ = std::move(changed);
  return *this;
}

BatchPolicy make_batch_policy(const std::string& name, const PolicySettings& settings) {
  return find_batch_policy(name).make(settings.values());
}

}  // namespace tracewarp::batch
