#include "match/tree_list_reader.h"

#include <charconv>
#include <cstdint>
#include <utility>

namespace geoalign::match {

namespace {

// A JSON number token, and how the general route reads it: nlohmann keeps a plain
// integer that fits 64 bits as an integer and converts from it, anything else as a double.
struct Number {
  bool integer = false;
  bool negative = false;
  std::uint64_t magnitude = 0;  // when integer
  double value = 0;             // otherwise

  // A negative integer's value; magnitude is at most 2^63 there. Negated as unsigned,
  // so that -2^63 does not overflow on the way.
  std::int64_t signed_value() const { return static_cast<std::int64_t>(std::uint64_t{0} - magnitude); }
  double as_double() const {
    if (!integer) return value;
    return negative ? static_cast<double>(signed_value()) : static_cast<double>(magnitude);
  }
  float as_float() const {
    if (!integer) return static_cast<float>(value);
    return negative ? static_cast<float>(signed_value()) : static_cast<float>(magnitude);
  }
  template <typename Int>
  std::optional<Int> as_whole() const {
    if (!integer) return std::nullopt;
    if (!negative) return std::in_range<Int>(magnitude) ? std::optional<Int>(static_cast<Int>(magnitude)) : std::nullopt;
    const std::int64_t v = signed_value();
    return std::in_range<Int>(v) ? std::optional<Int>(static_cast<Int>(v)) : std::nullopt;
  }
};

class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  std::size_t at() const { return i_; }
  void skip_blanks() {
    while (i_ < s_.size() && blank(s_[i_])) ++i_;
  }
  bool at_end() {
    skip_blanks();
    return i_ == s_.size();
  }
  bool eat(char c) {
    skip_blanks();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  // A string's raw text between its quotes (escapes left as written).
  std::optional<std::string_view> string() {
    skip_blanks();
    if (i_ >= s_.size() || s_[i_] != '"') return std::nullopt;
    const std::size_t first = ++i_;
    while (i_ < s_.size()) {
      if (s_[i_] == '\\') {
        i_ += 2;
      } else if (s_[i_] == '"') {
        return s_.substr(first, i_++ - first);
      } else {
        ++i_;
      }
    }
    return std::nullopt;
  }

  // Any value, not checked: the general parser reads everything outside the trees.
  bool skip_value() {
    skip_blanks();
    if (i_ >= s_.size()) return false;
    if (s_[i_] == '"') return string().has_value();
    if (s_[i_] != '{' && s_[i_] != '[') {
      const std::size_t first = i_;
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && !blank(s_[i_])) ++i_;
      return i_ > first;
    }
    std::size_t depth = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        if (!string()) return false;
        continue;
      }
      ++i_;
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return true;
    }
    return false;
  }

  // JSON's grammar exactly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  std::optional<Number> number() {
    skip_blanks();
    const std::size_t first = i_;
    Number n;
    n.negative = i_ < s_.size() && s_[i_] == '-';
    if (n.negative) ++i_;
    const std::size_t digits = i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else {
      while (i_ < s_.size() && digit(s_[i_])) ++i_;
    }
    if (i_ == digits) return std::nullopt;
    const std::size_t integer_end = i_;
    bool fraction = false, exponent = false;
    if (i_ < s_.size() && s_[i_] == '.') {
      fraction = true;
      if (!some_digits(++i_)) return std::nullopt;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      exponent = true;
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!some_digits(i_)) return std::nullopt;
    }
    if (!fraction && !exponent) {
      const auto [end, error] = std::from_chars(s_.data() + digits, s_.data() + integer_end, n.magnitude);
      // Beyond 64 bits (or past int64 when negative) the general route reads a double.
      const bool fits = error == std::errc() && end == s_.data() + integer_end &&
                        (!n.negative || n.magnitude <= std::uint64_t{1} << 63);
      if (fits) {
        n.integer = true;
        return n;
      }
    }
    const auto [end, error] = std::from_chars(s_.data() + first, s_.data() + i_, n.value);
    if (error != std::errc() || end != s_.data() + i_) return std::nullopt;  // out of range: the general route's call
    return n;
  }

 private:
  static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool digit(char c) { return c >= '0' && c <= '9'; }
  bool some_digits(std::size_t& i) {
    const std::size_t first = i;
    while (i < s_.size() && digit(s_[i])) ++i;
    return i > first;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// [feature, threshold, left, right, value]
bool read_node(Scanner& in, GradientBoostedTrees::FileNode& node) {
  if (!in.eat('[')) return false;
  const auto feature = in.number();
  if (!feature || !in.eat(',')) return false;
  const auto threshold = in.number();
  if (!threshold || !in.eat(',')) return false;
  const auto left = in.number();
  if (!left || !in.eat(',')) return false;
  const auto right = in.number();
  if (!right || !in.eat(',')) return false;
  const auto value = in.number();
  if (!value || !in.eat(']')) return false;
  const auto f = feature->as_whole<std::int32_t>();
  const auto l = left->as_whole<std::uint32_t>();
  const auto r = right->as_whole<std::uint32_t>();
  if (!f || !l || !r) return false;
  node = {*f, GradientBoostedTrees::threshold_from_file(threshold->as_double()), *l, *r, value->as_float()};
  return true;
}

// {"class": k, "nodes": [...]}, the two members in either order and nothing else.
bool read_tree(Scanner& in, GradientBoostedTrees::FileTree& tree) {
  if (!in.eat('{')) return false;
  bool has_class = false, has_nodes = false;
  do {
    const auto key = in.string();
    if (!key || !in.eat(':')) return false;
    if (*key == "class" && !has_class) {
      const auto n = in.number();
      const auto k = n ? n->as_whole<std::uint32_t>() : std::nullopt;
      if (!k) return false;
      tree.output_class = *k;
      has_class = true;
    } else if (*key == "nodes" && !has_nodes) {
      if (!in.eat('[')) return false;
      if (!in.eat(']')) {
        do {
          if (!read_node(in, tree.nodes.emplace_back())) return false;
        } while (in.eat(','));
        if (!in.eat(']')) return false;
      }
      has_nodes = true;
    } else {
      return false;
    }
  } while (in.eat(','));
  return in.eat('}') && has_class && has_nodes;
}

bool read_trees(Scanner& in, std::vector<GradientBoostedTrees::FileTree>& trees) {
  if (!in.eat('[')) return false;
  if (in.eat(']')) return true;
  do {
    if (!read_tree(in, trees.emplace_back())) return false;
  } while (in.eat(','));
  return in.eat(']');
}

std::optional<TreeListSpan> find_and_read(std::string_view json, std::vector<GradientBoostedTrees::FileTree>& trees) {
  Scanner in(json);
  if (!in.eat('{')) return std::nullopt;
  std::optional<TreeListSpan> span;
  if (in.eat('}')) return std::nullopt;
  do {
    const auto key = in.string();
    // An escaped key may spell "trees" too; the general route reads such files.
    if (!key || key->find('\\') != std::string_view::npos || !in.eat(':')) return std::nullopt;
    if (*key == "trees") {
      if (span) return std::nullopt;
      in.skip_blanks();
      TreeListSpan here;
      here.begin = in.at();
      if (!read_trees(in, trees)) return std::nullopt;
      here.end = in.at();
      span = here;
    } else if (!in.skip_value()) {
      return std::nullopt;
    }
  } while (in.eat(','));
  if (!in.eat('}') || !in.at_end()) return std::nullopt;
  return span;
}

}  // namespace

std::optional<TreeListSpan> read_tree_list(std::string_view json, std::vector<GradientBoostedTrees::FileTree>& trees) {
  trees.clear();
  auto span = find_and_read(json, trees);
  if (!span) trees.clear();
  return span;
}

}  // namespace geoalign::match
