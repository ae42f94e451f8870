#include "tracewarp/core/error.hpp"

namespace tracewarp {

InputError::InputError(const std::string& file, long line, const std::string& field, const std::string& problem)
    : Error(file + ":" + std::to_string(line) + ": field '" + field + "': " + problem, 2) {}

}  // namespace tracewarp
