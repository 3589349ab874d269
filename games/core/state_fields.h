// One list of a game state's fields, read both by full_state() and by state_hash().
//
// An engine describes its state once, in a member template
//
//   template <class Fields> void visit_state(Fields& f) const;
//
// that calls, in the order its hash reads them:
//   f.field("name", value)     a key of full_state() that the hash covers too;
//   f.hash_only(value)         hashed, but no key of its own in full_state(), which shows it
//                              through another field (a count that is an array's length, a
//                              flag that decides whether a field is null);
//   f.json_only("name", make)  a key of full_state() only, `make()` building its value from
//                              what the hash reads already (a constant such as the kind);
//   f.fields(value)            a group of keys of full_state() that the hash reads as one
//                              value (state_json(value) is an object whose keys are merged in:
//                              the trick play that full_state() shows as its tricks, cards
//                              played and leader).
// StateJson turns the visit into full_state()'s object. The hash side is the engine's own
// hasher with the same four members: hash encodings differ from engine to engine and are
// part of every stored game's checkpoints (games/core/replay.h), so each engine keeps its
// own. A field added to visit_state reaches both at once.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "games/core/card_set.h"
#include "games/core/game.h"
#include "games/core/json_cards.h"

namespace parlor {

// A value hashed as one thing and shown as another, such as a phase hashed as its number
// and shown by its name.
template <class Hashed, class Shown>
struct HashedAs {
  Hashed hashed;
  Shown shown;
};
// Spelled out for compilers without deduction for aggregates (clang before 17, clang-tidy).
template <class Hashed, class Shown>
HashedAs(Hashed, Shown) -> HashedAs<Hashed, Shown>;

// A field's value in full_state(). Engines overload state_json for their own types, in
// their own namespace (found by argument-dependent lookup). All declared before any is
// defined, so that each finds the others.
inline Json state_json(CardSet cards);  // index order
inline Json state_json(const Json& value);
inline Json state_json(const char* text);
inline Json state_json(std::string_view text);
template <class T>
requires std::is_arithmetic_v<T> Json state_json(T value);
template <class Hashed, class Shown>
Json state_json(const HashedAs<Hashed, Shown>& value);
template <class T>
Json state_json(const std::optional<T>& value);  // null when empty
template <class T>
Json state_json(std::span<const T> values);  // a run of values (one per seat, say): an array
template <class T>
Json state_json(const std::vector<T>& values);
template <class T, std::size_t N>
Json state_json(const std::array<T, N>& values);

inline Json state_json(CardSet cards) { return cards_to_json(cards); }
inline Json state_json(const Json& value) { return value; }
inline Json state_json(const char* text) { return Json(text); }
inline Json state_json(std::string_view text) { return Json(text); }
template <class T>
requires std::is_arithmetic_v<T> Json state_json(T value) { return Json(value); }
template <class Hashed, class Shown>
Json state_json(const HashedAs<Hashed, Shown>& value) {
  return state_json(value.shown);
}
template <class T>
Json state_json(const std::optional<T>& value) {
  return value ? state_json(*value) : Json(nullptr);
}
template <class T>
Json state_json(std::span<const T> values) {
  Json out = Json::array();
  for (const T& value : values) out.push_back(state_json(value));
  return out;
}
template <class T>
Json state_json(const std::vector<T>& values) {
  return state_json(std::span<const T>(values));
}
template <class T, std::size_t N>
Json state_json(const std::array<T, N>& values) {
  return state_json(std::span<const T>(values));
}

// Builds full_state() from an engine's visit_state.
class StateJson {
 public:
  template <class T>
  void field(const char* name, const T& value) {
    out_[name] = state_json(value);
  }
  template <class T>
  void hash_only(const T& /*value*/) {}
  template <class Make>
  void json_only(const char* name, Make&& make) {
    out_[name] = std::forward<Make>(make)();
  }
  template <class T>
  void fields(const T& value) {
    Json group = state_json(value);
    for (auto& [name, field] : group.items()) out_[name] = std::move(field);
  }

  Json take() { return std::move(out_); }

 private:
  Json out_ = Json::object();
};

// The hash side of visit_state: every kind of field goes to the engine's own add(), so an
// engine's hasher is its encoding and nothing else. `Derived` declares this base a friend.
template <class Derived>
class HashFields {
 public:
  template <class T>
  void field(const char* /*name*/, const T& value) {
    self().add(value);
  }
  template <class T>
  void hash_only(const T& value) {
    self().add(value);
  }
  template <class T>
  void fields(const T& value) {
    self().add(value);
  }
  template <class Make>
  void json_only(const char* /*name*/, Make&& /*make*/) {}

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace parlor
