#include "protocol/bounded_json.h"

#include <cstddef>
#include <utility>
#include <vector>

#include "protocol/text.h"

namespace parlor::protocol {
namespace {

using Kind = JsonParseFailure::Kind;

// Builds the DOM like nlohmann's own json_sax_dom_parser, refusing each event that
// would pass a limit. Returning false from any event stops the parser at once.
class BoundedBuilder {
 public:
  explicit BoundedBuilder(const Limits& limits) : limits_(limits) {
    // Requests nest two or three levels: one allocation for the usual frame.
    open_.reserve(8);
  }

  bool null() { return add(Json(nullptr)); }
  bool boolean(bool value) { return add(Json(value)); }
  bool number_integer(Json::number_integer_t value) { return add(Json(value)); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(Json(value)); }
  bool number_float(Json::number_float_t value, const Json::string_t& /*text*/) {
    return add(Json(value));
  }

  bool string(Json::string_t& value) {
    if (value.size() > limits_.max_string_bytes) return string_too_long();
    return add(Json(std::move(value)));
  }

  // Only the binary formats (CBOR, MessagePack...) produce these; JSON text never does.
  bool binary(Json::binary_t& /*value*/) { return fail(Kind::kSyntax, "frame is not valid JSON"); }

  bool start_object(std::size_t /*elements*/) { return open(Json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& name) {
    if (name.size() > limits_.max_string_bytes) return string_too_long();
    // Duplicates count too: each one still costs the parser work.
    if (++open_.back().keys > limits_.max_keys_per_object) {
      return fail(Kind::kTooManyKeys, "a JSON object has more than " +
                                          std::to_string(limits_.max_keys_per_object) + " keys");
    }
    // std::map nodes never move, so the pointer stays valid until the value arrives.
    pending_value_ = &(*open_.back().container)[std::move(name)];
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const Json::exception& /*error*/) {
    // The token and nlohmann's message may quote invalid bytes: report the position only.
    failure_kind_ = Kind::kSyntax;
    error_position_ = position;
    failed_ = true;
    return false;
  }

  bool failed() const { return failed_; }
  Kind failure_kind() const { return failure_kind_; }
  std::size_t error_position() const { return error_position_; }
  std::string& failure_message() { return failure_message_; }
  Json& root() { return root_; }

 private:
  // Places `value` where the parser is: the root, the end of the open array, or the
  // value of the key just read. Returns where it now lives.
  Json* place(Json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& parent = *open_.back().container;
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    *pending_value_ = std::move(value);
    return pending_value_;
  }

  bool add(Json&& value) {
    place(std::move(value));
    return true;
  }

  bool open(Json&& container) {
    if (open_.size() >= static_cast<std::size_t>(limits_.max_depth)) {
      return fail(Kind::kTooDeep,
                  "JSON nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    }
    // Pointers into the parent stay valid: nothing is added to a parent while a child is open.
    open_.push_back({place(std::move(container)), 0});
    return true;
  }

  bool close() {
    open_.pop_back();
    return true;
  }

  bool string_too_long() {
    return fail(Kind::kStringTooLong, "a JSON string is longer than " +
                                          std::to_string(limits_.max_string_bytes) + " bytes");
  }

  bool fail(Kind kind, std::string message) {
    failure_kind_ = kind;
    failure_message_ = std::move(message);
    failed_ = true;
    return false;
  }

  const Limits& limits_;
  Json root_;
  struct Open {
    Json* container;
    std::size_t keys;  // keys read so far (objects)
  };
  std::vector<Open> open_;         // the objects and arrays being filled, outermost first
  Json* pending_value_ = nullptr;  // the slot for the value of the last key
  bool failed_ = false;
  Kind failure_kind_ = Kind::kSyntax;
  std::size_t error_position_ = 0;
  std::string failure_message_;
};

JsonParseFailure syntax_failure(std::string_view text, std::size_t position, Json partial) {
  if (trim_ascii_whitespace(text).empty()) {
    return {Kind::kEmpty, "empty frame", std::move(partial)};
  }
  // nlohmann rejects invalid UTF-8 as a syntax error; telling the two apart costs a scan,
  // paid only on this failure path.
  if (const std::size_t bad = find_invalid_utf8(text); bad != std::string_view::npos) {
    return {Kind::kInvalidUtf8,
            "frame is not valid UTF-8 (byte offset " + std::to_string(bad) + ")",
            std::move(partial)};
  }
  // nlohmann counts the bytes read, the offending one included; report its offset.
  const std::size_t offset = position > 0 ? position - 1 : 0;
  return {Kind::kSyntax, "frame is not valid JSON (byte offset " + std::to_string(offset) + ")",
          std::move(partial)};
}

}  // namespace

std::variant<Json, JsonParseFailure> parse_bounded_json(std::string_view text,
                                                        const Limits& limits) {
  if (text.size() > limits.max_frame_bytes) {
    return JsonParseFailure{Kind::kTooLarge,
                            "frame of " + std::to_string(text.size()) + " bytes is over the " +
                                std::to_string(limits.max_frame_bytes) + "-byte limit",
                            Json()};
  }
  if (text.empty()) return JsonParseFailure{Kind::kEmpty, "empty frame", Json()};
  BoundedBuilder builder(limits);
  const char* begin = text.data();
  const char* end = begin + text.size();
  const bool ok = Json::sax_parse(begin, end, &builder, Json::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
  if (ok && !builder.failed()) return std::move(builder.root());
  if (builder.failure_kind() == Kind::kSyntax) {
    return syntax_failure(text, builder.error_position(), std::move(builder.root()));
  }
  return JsonParseFailure{builder.failure_kind(), std::move(builder.failure_message()),
                          std::move(builder.root())};
}

}  // namespace parlor::protocol
