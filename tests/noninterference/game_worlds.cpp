// The five games as WorldRules: each first deal as locations (hands, the undealt cards, the
// kitty, Gem Merchants' decks and face-up rows), a game built from a layout through the
// engine's own test seam, and what a viewer sees by the rules, read from full_state().
#include <stdexcept>

#include "games/agram/agram.h"
#include "games/bidwhist/bidwhist.h"
#include "games/bigtwo/bigtwo.h"
#include "games/core/deck.h"
#include "games/core/options.h"
#include "games/spades/spades.h"
#include "games/splendor/splendor.h"
#include "games/testing/self_play.h"
#include "tests/noninterference/worlds.h"

namespace parlor::testing {

namespace {

Json normalized(const GameInfo& info, const Json& given) {
  std::string error;
  auto options = normalize_options(info.options, given, error);
  if (!options) throw std::invalid_argument(info.kind + " options: " + error);
  return *options;
}

std::set<int> items_of(CardSet cards) {
  std::set<int> out;
  for (const Card card : cards) out.insert(card.index());
  return out;
}

CardSet cards_of(const Items& items) {
  CardSet out;
  for (const int index : items) out.add(Card::from_index(index));
  return out;
}

// A card game dealt as one hand per seat (locations 0..seats-1) and then, when the deck
// holds more, one location of cards nobody sees (the undealt cards, the kitty).
class CardGameWorld : public WorldRules {
 public:
  CardGameWorld(GameInfo info, const Json& given, int seat_count, CardSet deck, int hand_size,
                std::string counter)
      : info_(std::move(info)),
        options_(normalized(info_, given)),
        seats_(seat_count),
        deck_(deck),
        hand_size_(hand_size),
        counter_(std::move(counter)) {}

  std::string name() const override {
    return info_.kind + " (" + std::to_string(seats_) + " seats, " + options_.dump() + ")";
  }
  const GameInfo& info() const override { return info_; }
  Json options() const override { return options_; }
  int seats() const override { return seats_; }

  Layout deal(Rng& rng) const override {
    std::vector<int> cards;
    for (const Card card : deck_) cards.push_back(card.index());
    rng.shuffle(std::span<int>(cards));
    Layout layout(static_cast<std::size_t>(seats_));
    for (std::size_t i = 0; i < cards.size(); ++i) {
      const std::size_t seat = i / static_cast<std::size_t>(hand_size_);
      if (seat < layout.size()) {
        layout[seat].push_back(cards[i]);
      } else {
        if (layout.size() == static_cast<std::size_t>(seats_)) layout.emplace_back();
        layout.back().push_back(cards[i]);
      }
    }
    return layout;
  }

  bool sees_location(int location, Seat viewer) const override { return location == viewer; }

  // Everything in the state but other seats' hands and the cards nobody sees.
  std::set<int> visible_items(const Game& game, Seat viewer) const override {
    const Json state = game.full_state();
    CardSet hidden;
    for (const char* nobody : {"undealt", "kitty", "kitty_taken", "discarded"}) {
      if (state.contains(nobody)) hidden.add_all(cards_mentioned(state[nobody]));
    }
    const Json& hands = state.at("hands");
    for (Seat seat = 0; seat < seats_; ++seat) {
      if (seat != viewer) hidden.add_all(cards_mentioned(hands.at(static_cast<std::size_t>(seat))));
    }
    // The viewer's own hand, kitty cards it took included.
    if (viewer != kSpectator) {
      hidden.remove_all(cards_mentioned(hands.at(static_cast<std::size_t>(viewer))));
    }
    return items_of(cards_mentioned(state) - hidden);
  }

  std::set<int> named_items(const Json& move) const override {
    return items_of(cards_mentioned(move));
  }

  // The deal counter has not moved and the deal has not ended.
  bool in_first_deal(const Game& game) const override {
    if (game.finished()) return false;
    const Json state = game.full_state();
    const std::string phase = state.value("phase", "");
    return state.at(counter_) == 1 && phase != "hand_over" && phase != "deal_over";
  }

 protected:
  std::vector<CardSet> hands(const Layout& layout) const {
    std::vector<CardSet> out;
    for (Seat seat = 0; seat < seats_; ++seat) out.push_back(cards_of(layout.at(seat)));
    return out;
  }
  CardSet rest(const Layout& layout) const {
    return layout.size() > static_cast<std::size_t>(seats_) ? cards_of(layout.back()) : CardSet();
  }

  GameInfo info_;
  Json options_;
  int seats_;
  CardSet deck_;
  int hand_size_;
  std::string counter_;  // the full_state() key counting deals
};

class BigTwoWorld final : public CardGameWorld {
 public:
  BigTwoWorld(int seat_count, const Json& given)
      : CardGameWorld(bigtwo_info(), given, seat_count, standard_deck(), 13, "deal") {}
  std::unique_ptr<Game> build(const Layout& layout, std::uint64_t seed) const override {
    return bigtwo::BigTwoGame::with_hands(options_, hands(layout), seed);
  }
};

class SpadesWorld final : public CardGameWorld {
 public:
  explicit SpadesWorld(const Json& given)
      : CardGameWorld(spades_info(), given, 4, standard_deck(), 13, "hand_number") {}
  std::unique_ptr<Game> build(const Layout& layout, std::uint64_t seed) const override {
    spades::SpadesSetup setup;
    const auto dealt = hands(layout);
    std::copy(dealt.begin(), dealt.end(), setup.hands.begin());
    return spades::SpadesGame::create_with_setup(options_, setup, seed);
  }
};

class BidWhistWorld final : public CardGameWorld {
 public:
  explicit BidWhistWorld(const Json& given)
      : CardGameWorld(bidwhist_info(), given, 4, deck_with_jokers(), 12, "hand_number") {}
  std::unique_ptr<Game> build(const Layout& layout, std::uint64_t seed) const override {
    std::array<CardSet, bidwhist::kSeats> dealt{};
    const auto held = hands(layout);
    std::copy(held.begin(), held.end(), dealt.begin());
    const auto auction = option_string(options_, "auction") == "until_passed"
                             ? bidwhist::Auction::kUntilPassed
                             : bidwhist::Auction::kOnceAround;
    return bidwhist::BidWhistGame::create_with_deal(
        auction, static_cast<int>(option_int(options_, "target")), 3, dealt, rest(layout), seed);
  }
};

class AgramWorld final : public CardGameWorld {
 public:
  explicit AgramWorld(int seat_count)
      : CardGameWorld(agram_info(), Json::object(), seat_count, agram::agram_deck(),
                      agram::kHandSize, "deal_number") {}
  std::unique_ptr<Game> build(const Layout& layout, std::uint64_t seed) const override {
    return agram::AgramGame::create_with_hands(options_, hands(layout), 0, seed);
  }
};

// Gem Merchants: locations 0-2 the decks of levels 1-3 (bottom to top), hidden from all;
// 3-5 the face-up rows. The nobles come from the seed and are public.
class GemMerchantsWorld final : public WorldRules {
 public:
  explicit GemMerchantsWorld(int seat_count)
      : info_(splendor_info()), options_(normalized(info_, Json::object())), seats_(seat_count) {}

  std::string name() const override { return "splendor (" + std::to_string(seats_) + " seats)"; }
  const GameInfo& info() const override { return info_; }
  Json options() const override { return options_; }
  int seats() const override { return seats_; }

  Layout deal(Rng& rng) const override {
    const splendor::State state = splendor::initial_state(seats_, rng.next());
    Layout layout;
    for (const auto& deck : state.decks) layout.emplace_back(deck.begin(), deck.end());
    for (const auto& row : state.rows) layout.emplace_back(row.begin(), row.end());
    return layout;
  }

  std::unique_ptr<Game> build(const Layout& layout, std::uint64_t seed) const override {
    splendor::State state = splendor::initial_state(seats_, seed);
    for (std::size_t level = 0; level < state.decks.size(); ++level) {
      state.decks[level].assign(layout.at(level).begin(), layout.at(level).end());
      std::copy(layout.at(3 + level).begin(), layout.at(3 + level).end(),
                state.rows[level].begin());
    }
    return std::make_unique<splendor::SplendorGame>(std::move(state));
  }

  bool sees_location(int location, Seat /*viewer*/) const override { return location >= 3; }
  int pool(int location) const override { return location; }

  // The face-up cards, every bought card, and reserved cards except another seat's blind
  // ones (drawn from a deck top: only their owner knows them).
  std::set<int> visible_items(const Game& game, Seat viewer) const override {
    const splendor::State& state = dynamic_cast<const splendor::SplendorGame&>(game).state();
    std::set<int> out;
    for (const auto& row : state.rows) {
      for (const int card : row) {
        if (card != 0) out.insert(card);
      }
    }
    for (Seat seat = 0; seat < state.seats; ++seat) {
      const splendor::PlayerState& player = state.player(seat);
      out.insert(player.bought.begin(), player.bought.end());
      for (const splendor::ReservedCard& reserved : player.reserved) {
        if (seat == viewer || !reserved.blind) out.insert(reserved.card);
      }
    }
    return out;
  }

  std::set<int> named_items(const Json& move) const override {
    if (move.contains("card") && move["card"].is_number_integer()) return {move["card"].get<int>()};
    return {};
  }

  bool in_first_deal(const Game& game) const override { return !game.finished(); }

 private:
  GameInfo info_;
  Json options_;
  int seats_;
};

}  // namespace

std::vector<std::unique_ptr<WorldRules>> all_world_rules() {
  std::vector<std::unique_ptr<WorldRules>> out;
  out.push_back(std::make_unique<BigTwoWorld>(4, Json::object()));
  out.push_back(std::make_unique<BigTwoWorld>(3, Json::object()));
  out.push_back(std::make_unique<SpadesWorld>(Json::object()));
  out.push_back(std::make_unique<SpadesWorld>(Json{{"blind_nil", true}}));
  out.push_back(std::make_unique<BidWhistWorld>(Json{{"auction", "once_around"}}));
  out.push_back(std::make_unique<BidWhistWorld>(Json{{"auction", "until_passed"}}));
  out.push_back(std::make_unique<AgramWorld>(2));
  out.push_back(std::make_unique<AgramWorld>(5));
  out.push_back(std::make_unique<GemMerchantsWorld>(2));
  out.push_back(std::make_unique<GemMerchantsWorld>(4));
  return out;
}

}  // namespace parlor::testing
