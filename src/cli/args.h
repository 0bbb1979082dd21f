#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace geoalign::cli {

// A small getopt-style parser: "--name value", "--name=value", boolean "--name", and
// positional arguments. Unknown options and missing values are usage errors.
class Args {
 public:
  struct Option {
    std::string name;  // without the leading "--"
    bool takes_value;
    std::string help;
    std::string default_value;
  };

  Args(std::string command, std::vector<Option> options, std::string positional_help);

  // Throws UsageError.
  void parse(int argc, char** argv, int first);

  bool flag(const std::string& name) const;
  std::string value(const std::string& name) const;  // the given value or the default
  bool given(const std::string& name) const { return values_.count(name) > 0; }
  // Whether the command has the option at all (shared helpers read only what it declares).
  bool declares(const std::string& name) const;
  // Every value given to a repeatable option, in order (value() is the last of them).
  std::vector<std::string> all(const std::string& name) const;
  long integer(const std::string& name, long min, long max) const;
  double real(const std::string& name, double min, double max) const;
  // The value split at commas; an empty value or an empty item ("1,,4", "1,4,") is a usage error.
  std::vector<std::string> list(const std::string& name) const;
  // list(name), each item a number in [min, max] (nan, inf and trailing text refused).
  std::vector<double> reals(const std::string& name, double min, double max) const;
  const std::vector<std::string>& positional() const { return positional_; }
  std::string usage() const;

 private:
  const Option& find(const std::string& name) const;

  std::string command_;
  std::vector<Option> options_;
  std::string positional_help_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> every_value_;
  std::vector<std::string> positional_;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace geoalign::cli
