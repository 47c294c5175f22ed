// The trace outputs (output.perfetto, output.vcd, output.pccx) write into
// output.dir: switching one on without the folder is a configuration error
// that names both keys.
#include "config_test_util.h"

using namespace pccx::config;
using cfgtest::load_error;

TEST(ConfigOutputKeys, OffByDefault) {
  const platform_config c = load({{}, {}});
  EXPECT_FALSE(c.output.perfetto);
  EXPECT_FALSE(c.output.vcd);
  EXPECT_FALSE(c.output.pccx);
}

TEST(ConfigOutputKeys, EachOutputNeedsTheFolder) {
  EXPECT_EQ(load_error({{}, {"output.perfetto=true"}}),
            "--set output.perfetto=true: /output/perfetto: output.perfetto is on but output.dir is "
            "empty: set output.dir (--out DIR) to the folder for trace.perfetto.json");
  EXPECT_EQ(load_error({{}, {"output.vcd=true"}}),
            "--set output.vcd=true: /output/vcd: output.vcd is on but output.dir is empty: set "
            "output.dir (--out DIR) to the folder for signals.vcd");
  EXPECT_EQ(load_error({{}, {"output.pccx=true"}}),
            "--set output.pccx=true: /output/pccx: output.pccx is on but output.dir is empty: set "
            "output.dir (--out DIR) to the folder for session.pccx");
}

TEST(ConfigOutputKeys, WithTheFolderTheyLoad) {
  const platform_config c = load(
      {{}, {"output.dir=\"out\"", "output.perfetto=true", "output.vcd=true", "output.pccx=true"}});
  EXPECT_EQ(c.output.dir, "out");
  EXPECT_TRUE(c.output.perfetto);
  EXPECT_TRUE(c.output.vcd);
  EXPECT_TRUE(c.output.pccx);
}
