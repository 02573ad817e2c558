#include "Schedule.h"

#include <fmt/format.h>

#include <sstream>

namespace moac {

std::optional<std::string> parseSchedule(const std::string &text, Schedule &schedule) {
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty())
      continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      return fmt::format("schedule item '{}' is not KEY=VALUE", item);
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "layout") {
      if (value == "auto")
        schedule.layouts = Schedule::Layouts::Auto;
      else if (value == "rowmajor")
        schedule.layouts = Schedule::Layouts::RowMajor;
      else if (value == "lifted")
        schedule.layouts = Schedule::Layouts::Lifted;
      else
        return fmt::format("layout must be auto, rowmajor or lifted, not '{}'", value);
      continue;
    }
    if (key == "fuse" || key == "reuse" || key == "mma") {
      if (value != "on" && value != "off")
        return fmt::format("{} must be on or off, not '{}'", key, value);
      (key == "fuse" ? schedule.fuse : key == "reuse" ? schedule.reuse : schedule.mma) = value == "on";
      continue;
    }
    if (key == "scores") {
      if (value == "auto")
        schedule.scores = Schedule::Scores::Auto;
      else if (value == "inline")
        schedule.scores = Schedule::Scores::Inline;
      else if (value == "stored")
        schedule.scores = Schedule::Scores::Stored;
      else
        return fmt::format("scores must be auto, inline or stored, not '{}'", value);
      continue;
    }
    int64_t number = 0;
    try {
      size_t used = 0;
      number = std::stoll(value, &used);
      if (used != value.size())
        throw std::invalid_argument(value);
    } catch (const std::exception &) {
      return fmt::format("schedule value '{}' for {} is not an integer", value, key);
    }
    if (key == "prefetch") { // 0: none
      if (number < 0 || number > Schedule::maxPrefetch)
        return fmt::format("schedule value {} for prefetch must be from 0 to {}", number, Schedule::maxPrefetch);
      schedule.prefetch = number;
      continue;
    }
    if (number < 1)
      return fmt::format("schedule value {} for {} must be positive", number, key);
    if (key == "threads")
      schedule.threads = number;
    else if (key == "chunk")
      schedule.chunk = number, schedule.chunkSet = true;
    else if (key == "block")
      schedule.block = number;
    else if (key == "splits")
      schedule.splits = number, schedule.splitsSet = true;
    else if (key == "lanes") {
      if (number > Schedule::maxLanes)
        return fmt::format("schedule value {} for lanes must be at most {}", number, Schedule::maxLanes);
      schedule.lanes = number;
    } else if (key == "pack") {
      if (number > 32 || (number & (number - 1)) != 0)
        return fmt::format("schedule value {} for pack must be a power of two at most 32", number);
      schedule.pack = number;
    } else if (key == "tile") {
      if (number > Schedule::maxTile)
        return fmt::format("schedule value {} for tile must be at most {}", number, Schedule::maxTile);
      schedule.tile = number;
    } else if (key == "ahead") {
      if (number > Schedule::maxAhead)
        return fmt::format("schedule value {} for ahead must be at most {}", number, Schedule::maxAhead);
      schedule.ahead = number;
    } else
      return fmt::format("unknown schedule key '{}' (threads, chunk, block, layout, fuse, reuse, scores, splits, lanes, tile, prefetch, pack, ahead, mma)", key);
  }
  return std::nullopt;
}

} // namespace moac
