#pragma once
// One rule for every self-registering factory (engines, device kinds, draft builders, tree
// methods, window policies, statistic kinds, scenarios, plan schemes, commands, reproductions):
// entries are registered once, from static initialisers in the file that implements them
// (Ramulator 2 style), and looked up by name. A second registration of a name is a programming
// error, not a silent override: add() throws std::logic_error naming the registry and the key (at
// start-up that ends the program with the message, so a duplicate never ships; each registry's
// test lists its names). Safe to read from several threads once registration is over, and
// registration itself is locked (a library loaded later may register more).
//
// The storage is a function-local static (construct on first use), so registrations in other
// translation units never see an unconstructed registry.
#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace models {

template <class Key, class Value>
class Registry {
 public:
  // `what` names the registry in messages ("engine", "scenario", ...).
  explicit Registry(std::string what) : what_(std::move(what)) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  void add(const Key& key, Value value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!entries_.emplace(key, std::move(value)).second)
      throw std::logic_error("registry of " + what_ + ": '" + describe(key) + "' is registered twice");
  }

  // The entry, or null. The pointer stays valid (entries are never removed or replaced).
  const Value* find(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Every key, in key order.
  std::vector<Key> keys() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Key> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back(e.first);
    return out;
  }

  // Every entry, in key order (pointers stay valid, as for find()).
  std::vector<std::pair<Key, const Value*>> entries() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<Key, const Value*>> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.emplace_back(e.first, &e.second);
    return out;
  }

  // Copies of every entry, in key order (for registries whose values are copyable).
  std::vector<Value> values() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Value> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back(e.second);
    return out;
  }

  const std::string& what() const { return what_; }

 private:
  static std::string describe(const Key& key) {
    std::ostringstream os;
    write(os, key);
    return os.str();
  }
  template <class K>
  static auto write(std::ostream& os, const K& k) -> decltype(os << k, void()) {
    os << k;
  }
  template <class A, class B>
  static void write(std::ostream& os, const std::pair<A, B>& k) {
    write(os, k.first);
    os << " / ";
    write(os, k.second);
  }

  std::string what_;
  mutable std::mutex mutex_;
  std::map<Key, Value> entries_;
};

}  // namespace models
