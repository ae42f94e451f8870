// The one error hierarchy of tracewarp. Every failure that reaches the user is one of these,
// caught once at the top of main, printed as one line, and turned into the documented exit code:
//   2 — the user asked for something wrong (usage, configuration, input files);
//   1 — a run failed (memory budget, engine invariant, rollback check);
//   3 — stopped on request (engine/stop_request.hpp) with what `run --resume` needs saved.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace tracewarp {

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int exit_code) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

// Exit code 2: bad usage, configuration or input.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(message, 2) {}
};
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& message) : Error(message, 2) {}
};
// A model broke the lookahead it promised (or engine.lookahead_s promised too much): found by
// one rank, at the send that broke it.
class LookaheadError : public Error {
 public:
  explicit LookaheadError(const std::string& message) : Error(message, 2) {}
};
// Bad input data: the message names file, line and field.
class InputError : public Error {
 public:
  InputError(const std::string& file, long line, const std::string& field, const std::string& problem);
  explicit InputError(const std::string& message) : Error(message, 2) {}
};

// A piece of an input file as it may appear in a message: quoted, at most 40 characters, bytes
// that are not printable ASCII as \xNN (a binary file never reaches the terminal raw).
std::string quoted_input(std::string_view text);

// Exit code 1: the run itself failed.
// Writing or reading results failed (HDF5's own error chain is in the message).
class IoError : public Error {
 public:
  explicit IoError(const std::string& message) : Error(message, 1) {}
};

class RunError : public Error {
 public:
  explicit RunError(const std::string& message) : Error(message, 1) {}
};
// The engine could not stay within its memory budget even after committing all it could.
class MemoryBudgetError : public RunError {
 public:
  using RunError::RunError;
};
// Rollback check mode found an event handler whose re-execution differs from its first run.
class RollbackCheckError : public RunError {
 public:
  using RunError::RunError;
};
// An engine or model invariant was violated (always-on checks, not debug asserts).
class InvariantError : public RunError {
 public:
  using RunError::RunError;
};

// A run failure every rank raises together (world rank 0 found it before any run and told the
// others): the ranks stop normally, and rank 0 says why.
class SharedRunError : public RunError {
 public:
  using RunError::RunError;
};

// Exit code 3: every rank stopped on request, after saving what `run --resume` goes on from.
class StoppedError : public Error {
 public:
  explicit StoppedError(const std::string& message) : Error(message, 3) {}
};

// A run failure that another rank detected and reports in full; this rank only stops, quietly.
class PeerFailure : public RunError {
 public:
  using RunError::RunError;
};

}  // namespace tracewarp
