// `pccx-vp ddr-bench`: the memory system alone under generated traffic.
// Four HP streams and a port that asks for only 0.1 GB/s get the front
// end's whole capacity (the light port's share goes to the others); random
// rows are far slower than streaming; bad streams and request files are
// input errors that name what is wrong.
#include "e2e_util.h"

namespace e2e {
namespace {

using DdrBench = E2E;

std::vector<std::string> hp_streams() {
  return {"--stream", "port=hp0,size=4096,bytes=16MiB,base=0,span=1GiB,outstanding=4",
          "--stream", "port=hp1,size=4096,bytes=16MiB,base=1GiB,span=1GiB,outstanding=4",
          "--stream", "port=hp2,size=4096,bytes=16MiB,base=2GiB,span=1GiB,outstanding=4",
          "--stream", "port=hp3,size=4096,bytes=16MiB,base=3GiB,span=512MiB,outstanding=4"};
}

TEST_F(DdrBench, ALightPortLeavesItsShareToTheBusyOnes) {
  auto args = std::vector<std::string>{"ddr-bench", "--json", "b.json"};
  for (const auto& a : hp_streams()) args.push_back(a);
  args.insert(args.end(), {"--stream", "port=acp,size=64,rate=0.1,bytes=64KiB,base=3584MiB,span=512MiB"});
  const auto r = vp(args);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json j = json::parse(read_file(path("b.json")));
  const double effective = j["ddr"]["capacity"]["effective_gbps"].get<double>();
  double hp = 0;
  for (int i = 0; i < 4; ++i) hp += j["streams"][i]["result"]["gbps"].get<double>();
  // The four HP streams get what the ACP port leaves: 10.97 - 0.1 GB/s.
  EXPECT_GT(hp, (effective - 0.1) * 0.98) << j["streams"].dump(2);
  EXPECT_NEAR(j["streams"][4]["result"]["gbps"].get<double>(), 0.1, 0.01);
  EXPECT_TRUE(contains(r.out, "delivered ")) << r.out;
  EXPECT_TRUE(contains(r.out, "DRAM time: data ")) << r.out;
  // The same without the light port, at another quantum: the same total.
  auto plain = std::vector<std::string>{"ddr-bench", "--json", "p.json", "--set",
                                        "simulation.quantum_ns=100"};
  for (const auto& a : hp_streams()) plain.push_back(a);
  ASSERT_EQ(vp(plain).exit_code, 0);
  const json p = json::parse(read_file(path("p.json")));
  EXPECT_NEAR(p["total"]["gbps"].get<double>(), effective, 0.02 * effective);
}

TEST_F(DdrBench, RandomRowsAreFarSlowerThanAStream) {
  const std::vector<std::string> alone = {"--set", "ddr.controller.queue_entries=4096", "--set",
                                          "ddr.hp_bytes_per_cycle=128"};
  auto seq = std::vector<std::string>{"ddr-bench", "--json", "s.json", "--stream",
                                      "port=hp0,size=64,bytes=4MiB,outstanding=256"};
  auto rnd = std::vector<std::string>{"ddr-bench", "--json", "r.json", "--stream",
                                      "port=hp0,size=64,bytes=2MiB,outstanding=256,pattern=random"};
  seq.insert(seq.end(), alone.begin(), alone.end());
  rnd.insert(rnd.end(), alone.begin(), alone.end());
  ASSERT_EQ(vp(seq).exit_code, 0);
  ASSERT_EQ(vp(rnd).exit_code, 0);
  const json s = json::parse(read_file(path("s.json")));
  const json r = json::parse(read_file(path("r.json")));
  const double sg = s["total"]["gbps"].get<double>(), rg = r["total"]["gbps"].get<double>();
  EXPECT_GT(sg, 18.0);         // 19.2 GB/s less refresh
  EXPECT_LT(rg, 4 * 64 / 30.0);  // at most four activates per tFAW
  EXPECT_LT(r["ddr"]["dram"]["ports"]["hp0"]["row_hit_rate"].get<double>(), 0.01);
  EXPECT_GT(r["ddr"]["dram"]["commands"]["activates"].get<uint64_t>(), 30000u);
}

TEST_F(DdrBench, BadStreamsAndRequestFilesAreNamed) {
  auto r = vp({"ddr-bench", "--stream", "port=hp9"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "port=hp9: expected hp0, hp1, hp2, hp3, acp or cpu")) << r.err;
  r = vp({"ddr-bench", "--stream", "size=64,bytes=1MiB,speed=3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "unknown key 'speed'")) << r.err;
  r = vp({"ddr-bench", "--stream", "base=4GiB,span=1GiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "leave the DDR")) << r.err;
  write_file(path("req.txt"), "# t port addr bytes dir\n0 hp0 0x1000 64 R\n10 hp1 0x2000 64 X\n");
  r = vp({"ddr-bench", "--requests", path("req.txt")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "req.txt:3: direction 'X' (R or W)")) << r.err;
  r = vp({"--stream", "port=hp0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--stream and --requests are for ddr-bench")) << r.err;
}

TEST_F(DdrBench, ARequestFileIsReplayed) {
  write_file(path("req.txt"),
             "0 hp0 0x0 4096 R\n0 hp1 0x100000 4096 W\n100 hp0 0x1000 4096 R  # next block\n");
  const auto r = vp({"ddr-bench", "--requests", path("req.txt"), "--json", "q.json"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json j = json::parse(read_file(path("q.json")));
  EXPECT_EQ(j["total"]["bytes"].get<uint64_t>(), 3u * 4096);
  EXPECT_EQ(j["ddr"]["dram"]["commands"]["write_bursts"].get<uint64_t>(), 64u);
}

}  // namespace
}  // namespace e2e
