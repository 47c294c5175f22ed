// The speed figures of a run (platform/vp/report/run_speed): speed.json holds
// the wall-clock figures, never summary.json, which holds the prints, the
// markers and the configuration the run used.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/config/platform_loader.h"
#include "plot_test_util.h"

using namespace pccx;
namespace fs = std::filesystem;
using test::plots::Plots;
using test::plots::read_text;
using test::plots::tiny_decode;

TEST_F(Plots, SummaryHasSpeedMarkersPrintsAndTheConfig) {
  const auto cfg = plotting();
  const auto rep = tiny_decode(cfg, 1, false);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  const nlohmann::json s = nlohmann::json::parse(read_text(path("summary.json")));
  // The wall-clock figures are in speed.json, never in the summary.
  EXPECT_FALSE(s.contains("speed"));
  EXPECT_FALSE(s.contains("wall_time_s"));
  const nlohmann::json speed = nlohmann::json::parse(read_text(path("speed.json")));
  const double wall = speed.at("wall_time_s");
  EXPECT_GT(wall, 0);
  EXPECT_LT(wall, 600);
  EXPECT_EQ(wall, rep.run.wall_time_s);
  EXPECT_EQ(speed.at("sim_time_ns").get<double>(), rep.run.sim_time_ns);
  EXPECT_NEAR(speed.at("sim_per_wall").get<double>(), rep.run.sim_time_ns * 1e-9 / wall,
              1e-9 * rep.run.sim_time_ns / wall);
  EXPECT_GT(speed.at("sim_per_wall").get<double>(), 0);
  const uint64_t tx = s["memory"]["ddr"]["bandwidth"]["total"]["transactions"];
  EXPECT_GT(tx, 100u);
  EXPECT_EQ(speed.at("ddr_transactions").get<uint64_t>(), tx);
  EXPECT_NEAR(speed.at("ddr_transactions_per_wall_s").get<double>(), double(tx) / wall,
              1e-9 * double(tx) / wall);
  EXPECT_EQ(speed.at("npu_instructions").get<uint64_t>(), rep.run.instructions_retired);
  EXPECT_GT(rep.run.instructions_retired, 3000u);
  EXPECT_NEAR(speed.at("npu_instructions_per_wall_s").get<double>(),
              double(rep.run.instructions_retired) / wall, 1e-6 * rep.run.instructions_retired);
  const double rss = speed.at("peak_rss_mib");
  EXPECT_GT(rss, 1);
  EXPECT_LT(rss, 65536);

  // Everything a run prints is in the summary, and the effective configuration.
  EXPECT_EQ(s.at("printed").get<std::vector<std::string>>(), rep.run.printed);
  ASSERT_EQ(s.at("markers").size(), rep.run.markers.size());
  for (size_t i = 0; i < rep.run.markers.size(); ++i) {
    EXPECT_EQ(s["markers"][i]["marker"], rep.run.markers[i]);
    EXPECT_EQ(s["markers"][i]["t_ns"].get<double>(), rep.run.marker_times_ns[i]);
  }
  // The configuration the run used: the decode sets the KV head size from the model.
  config::platform_config used = cfg;
  used.npu.kv.head_dim = 32;
  EXPECT_EQ(s.at("config"), config::to_json(used));
  EXPECT_EQ(s["config"]["output"]["plots"], true);
  EXPECT_EQ(s["config"]["simulation"]["mode"], "timing");
}
