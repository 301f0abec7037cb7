// Formatting library: the parts that parse format specs.
#include <string>
#include <string_view>
#include <vector>

#define FMT_CONSTEXPR constexpr
#define FMT_ASSERT(cond, msg) ((cond) ? (void)0 : assert_fail(__FILE__, __LINE__, (msg)))

namespace fmt {

constexpr int max_precision = 100;

enum class align { none, left, right, center };

template <typename Char>
struct format_specs {
  int width = 0;
  int precision = -1;
  align alignment = align::none;
};

class format_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  explicit format_error(const char* message) : std::runtime_error(message) {}
  format_error(const format_error&) = default;
  ~format_error() noexcept override;
};

template <typename Char>
class basic_string_view {
 public:
  constexpr basic_string_view() noexcept : data_(nullptr), size_(0) {}

  constexpr auto size() const noexcept -> size_t { return size_; }

  FMT_CONSTEXPR auto compare(basic_string_view other) const -> int { if (size_ != other.size_) {
      return size_ < other.size_ ? -1 : 1;
    }
    return 0;
  }

  auto begin() const noexcept -> const Char*;

 private:
  const Char* data_;
  size_t size_;
};

template <typename Char>
auto basic_string_view<Char>::begin() const noexcept -> const Char* {
  return data_;
}

template <typename OutputIt, typename Char>
FMT_CONSTEXPR auto write_padded(OutputIt out,
                                const format_specs<Char>& specs,
                                size_t size) -> OutputIt {
  return out;
}

inline auto to_vector(std::string_view s) -> std::vector<char> { return {
    s.begin(), s.end(),
  };
}

}  // namespace fmt

extern "C" int fmt_vformat(char* buffer, size_t size, const char* fmt) {
  return 0;
}
