#pragma once
/// \file
/// Parts on devices (`--parts N`): the grid cut into N parts by the partitioner, the parts
/// given to the process's devices in order, each device a contiguous run of parts (the
/// partition's x-fastest order, so a device's parts are neighbours), the runs as even as the
/// counts allow, the first devices taking the spare parts. A device's weight (`--weights`, equal
/// without it) is shared by its parts, so the partitioner gives each part its device's share
/// over the parts it holds. Standard library only: the generator's plans may use it too.

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// How many of `parts` parts each of `devices` devices holds: even, the first take the spare
/// (5 over 2: {3, 2}). Fewer parts than devices: one each, the last devices none.
inline std::vector<int> parts_per_device(int parts, int devices) {
  std::vector<int> count(static_cast<std::size_t>(devices > 0 ? devices : 0), 0);
  if (devices <= 0 || parts <= 0) return count;
  for (int d = 0; d < devices; ++d)
    count[static_cast<std::size_t>(d)] = parts / devices + (d < parts % devices ? 1 : 0);
  return count;
}

/// The weights of `parts` parts for the partitioner, from one weight per device of `devices`
/// (`device_weights` empty: equal): each part gets its device's weight over the parts it holds,
/// so that the devices' shares stay those of their weights (5 parts on 2 equal devices: 1/3 of
/// a device's work for each of the first 3 parts, 1/2 for the other 2). One part per device:
/// the device weights as given (empty: equal).
inline std::vector<double> part_weights(const std::vector<double>& device_weights, int devices,
                                        int parts) {
  if (parts == devices) return device_weights;
  const std::vector<int> count = parts_per_device(parts, devices);
  std::vector<double> w;
  for (std::size_t d = 0; d < count.size(); ++d)
    for (int k = 0; k < count[d]; ++k)
      w.push_back((device_weights.empty() ? 1.0 : device_weights[d]) / count[d]);
  return w;
}

/// Sets Part::device of every part of `partition` for `devices` devices (parts_per_device over
/// the parts the partitioner made, which may be fewer than asked for).
inline void place_parts(Partition& partition, int devices) {
  const std::vector<int> count =
      parts_per_device(static_cast<int>(partition.parts.size()), devices);
  std::size_t d = 0;
  int held = 0;
  for (Part& part : partition.parts) {
    while (d < count.size() && held == count[d]) {
      ++d;
      held = 0;
    }
    part.device = static_cast<int>(d);
    ++held;
  }
}

/// Whether some device of the process holds more than one part of `partition`.
inline bool shares_devices(const Partition& partition) {
  for (std::size_t p = 1; p < partition.parts.size(); ++p)
    if (partition.parts[p].device == partition.parts[p - 1].device) return true;
  return false;
}

/// How many devices hold parts of `partition` (the highest Part::device + 1).
inline int devices_used(const Partition& partition) {
  int most = 0;
  for (const Part& part : partition.parts) most = std::max(most, part.device + 1);
  return most;
}

/// The report's words for the run's parts: "3 part(s) on 1 device(s)", or "2 device(s)" when
/// each device holds one part.
inline std::string parts_text(const Partition& partition) {
  const std::size_t n = partition.parts.size();
  if (!shares_devices(partition)) return std::to_string(n) + " device(s)";
  return std::to_string(n) + " part(s) on " + std::to_string(devices_used(partition)) +
         " device(s)";
}

}  // namespace stepgen::rt
