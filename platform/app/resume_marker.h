// What --resume trusts: a marker written beside a point's (or a cell's)
// outputs once they are complete, holding a fingerprint of the exact
// command that produced them and what the sweep recorded of the point.
// A point whose marker is present, readable and of the same command is not
// run again; anything else (no marker, a half-written one, another
// command, a failed point, which never gets one) runs.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pccx::app {

// A fingerprint of a child's arguments (64-bit FNV-1a, hex).
std::string command_fingerprint(const std::vector<std::string>& args);

// Writes the marker atomically: {"fingerprint": ..., "record": record}.
void mark_complete(const std::string& path, const std::string& fingerprint,
                   const nlohmann::json& record);

// The record of a complete point, or nothing.
std::optional<nlohmann::json> completed(const std::string& path, const std::string& fingerprint);

}  // namespace pccx::app
