#include "cli/args.h"

#include <charconv>
#include <sstream>
#include <stdexcept>

namespace geoalign::cli {

Args::Args(std::string command, std::vector<Option> options, std::string positional_help)
    : command_(std::move(command)), options_(std::move(options)), positional_help_(std::move(positional_help)) {
  options_.push_back({"help", false, "show this help", ""});
}

const Args::Option& Args::find(const std::string& name) const {
  for (const auto& o : options_) {
    if (o.name == name) return o;
  }
  throw UsageError("unknown option --" + name);
}

void Args::parse(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h") {
      values_["help"] = "1";
      continue;
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      // A command without positional arguments would otherwise run on its defaults and
      // ignore what the user meant (`profile pairs.tsv` profiling the built-in pairs).
      if (positional_help_.empty()) {
        throw UsageError("takes no arguments besides options; got \"" + arg + "\" (options start with --)");
      }
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    const Option& option = find(name);
    if (!option.takes_value) {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      values_[name] = "1";
    } else if (inline_value) {
      values_[name] = *inline_value;
    } else if (i + 1 < argc) {
      values_[name] = argv[++i];
    } else {
      throw UsageError("--" + name + " needs a value");
    }
    if (option.takes_value) every_value_[name].push_back(values_[name]);
  }
}

bool Args::flag(const std::string& name) const {
  find(name);  // a misspelt name is a bug, as it is for value()
  return values_.count(name) != 0;
}

std::vector<std::string> Args::all(const std::string& name) const {
  find(name);
  const auto it = every_value_.find(name);
  return it != every_value_.end() ? it->second : std::vector<std::string>{};
}

bool Args::declares(const std::string& name) const {
  for (const auto& o : options_) {
    if (o.name == name) return true;
  }
  return false;
}

std::string Args::value(const std::string& name) const {
  const auto it = values_.find(name);
  return it != values_.end() ? it->second : find(name).default_value;
}

long Args::integer(const std::string& name, long min, long max) const {
  const std::string text = value(name);
  long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) {
    throw UsageError("--" + name + " must be a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got \"" + text + "\"");
  }
  return v;
}

double Args::real(const std::string& name, double min, double max) const {
  const std::string text = value(name);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !(v >= min && v <= max)) {
    std::ostringstream range;
    range << min << " to " << max;
    throw UsageError("--" + name + " must be a number from " + range.str() + ", got \"" + text + "\"");
  }
  return v;
}

std::vector<double> Args::reals(const std::string& name, double min, double max) const {
  std::vector<double> out;
  for (const std::string& item : list(name)) {
    double v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || !(v >= min && v <= max)) {
      std::ostringstream range;
      range << min << " to " << max;
      throw UsageError("--" + name + " must be comma-separated numbers from " + range.str() + ", got \"" +
                       value(name) + "\"");
    }
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> Args::list(const std::string& name) const {
  const std::string text = value(name);
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (items.back().empty()) throw UsageError("--" + name + " has an empty item in \"" + text + "\"");
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

std::string Args::usage() const {
  std::string s = "usage: geoalign " + command_ + " [options] " + positional_help_ + "\n\noptions:\n";
  for (const auto& o : options_) {
    std::string left = "  --" + o.name + (o.takes_value ? " VALUE" : "");
    left.resize(std::max<std::size_t>(left.size() + 2, 28), ' ');
    s += left + o.help;
    if (!o.default_value.empty()) s += " (default: " + o.default_value + ")";
    s += "\n";
  }
  return s;
}

}  // namespace geoalign::cli
