// Error: the one exception type gridsolve throws, with a kind that maps to an exit code.
#pragma once
#include <stdexcept>
#include <string>

namespace gridsolve {

class Error : public std::runtime_error {
 public:
  // invalid_input: the user asked for something impossible (exit code 2).
  // runtime: the machine or a library failed (exit code 1).
  enum class Kind { invalid_input, runtime };

  explicit Error(const std::string& what, Kind kind = Kind::invalid_input)
      : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

}  // namespace gridsolve
