#include "platform/app/cli_options.h"

#include <boost/program_options.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "infra/text/quote.h"
#include "platform/workload/replay_dma_plan.h"

namespace pccx::app {

namespace po = boost::program_options;

namespace {

// A whole number for a count, a size or a seed: digits only, in range.
// Boost would read "-5" into an unsigned option as 4294967291.
template <class T>
po::typed_value<std::string>* whole_number(const char* name, T* target) {
  return po::value<std::string>()->notifier([name, target](const std::string& text) {
    const std::string range =
        "a whole number from 0 to " + std::to_string(std::numeric_limits<T>::max());
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
      throw cli_error(std::string("--") + name + " " + pccx::text::escaped(text) + ": expected " +
                      range);
    unsigned long long v = 0;
    for (char c : text) {
      const unsigned d = static_cast<unsigned>(c - '0');
      if (v > (std::numeric_limits<T>::max() - d) / 10)
        throw cli_error(std::string("--") + name + " " + pccx::text::escaped(text) +
                        ": too large; expected " + range);
      v = v * 10 + d;
    }
    *target = static_cast<T>(v);
  });
}

}  // namespace

cli_options parse_cli(int argc, char** argv) {
  cli_options o;
  // "--" ends pccx-vp's own options: what follows is the command a sweep's
  // points run, read when the sweep starts.
  int own = argc;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      own = i;
      o.point_command.assign(argv + i + 1, argv + argc);
      break;
    }
  std::vector<std::string> sets, logs, positional, sweeps;
  std::string shard;
  std::string log_level, trace_mmio, trace_instr, trace_ddr, out_dir, lint, auto_dma, fail_above;
  bool strict = false;

  po::options_description general("Options");
  general.add_options()("help,h", "show this help")("version", "print the version")(
      "firmware,f", po::value(&o.firmware),
      "firmware to run: a built-in program name, a path to a firmware object (.so) or to an "
      "AArch64 ELF (the board's binary); default memset_sync")(
      "gdb", whole_number("gdb", &o.gdb_port),
      "serve GDB on localhost:PORT for an AArch64 ELF firmware; the CPU waits at its entry "
      "(simulation.max_wall_s does not apply)")("list-firmware",
                                                "list the built-in firmware programs")(
      "config,c", po::value<std::vector<std::string>>(&o.layers.files)->composing(),
      "JSON configuration file; repeatable, later files win")(
      "set,s", po::value<std::vector<std::string>>(&sets)->composing(),
      "override one key: a.b.c=value (JSON value, or text); repeatable, applied after files")(
      "dump-config", po::value(&o.dump_config), "write the effective configuration to FILE")(
      "validate-only", po::bool_switch(&o.validate_only), "check the configuration and exit")(
      "strict", po::bool_switch(&strict),
      "the platform's strict reading: upstream departures are NPU errors, and the first NPU "
      "error ends the run (simulation.strict)")(
      "lint", po::value(&lint),
      "driver lint: off, warn (log each warning) or error (the first warning fails the run) "
      "(simulation.lint, default warn)")("log-level", po::value(&log_level),
                                         "default log level (log.level)")(
      "log", po::value<std::vector<std::string>>(&logs)->composing(),
      "per-module level MODULE=LEVEL, e.g. npu.cmd=debug (log.modules)")(
      "trace-mmio", po::value(&trace_mmio), "write the MMIO access trace to FILE (trace.mmio)")(
      "trace-instructions", po::value(&trace_instr),
      "write the instruction trace to FILE (trace.instructions)")(
      "trace-ddr", po::value(&trace_ddr),
      "write the per-transaction DDR trace to FILE (trace.ddr)")(
      "out,o", po::value(&out_dir), "folder for run outputs, e.g. summary.json (output.dir)");
  po::options_description kv("kv-accuracy options");
  kv.add_options()("tokens", whole_number("tokens", &o.kv_tokens),
                   "cached tokens per synthetic head (2048)")(
      "heads", whole_number("heads", &o.kv_heads), "synthetic heads averaged (4)")(
      "seed", whole_number("seed", &o.kv_seed), "seed of the first head (1)");
  po::options_description dec("decode options");
  dec.add_options()("model", po::value(&o.model), "model file, e.g. configs/models/tiny.json")(
      "context", whole_number("context", &o.context), "tokens already in the KV rings, L (1024)")(
      "ring-cap", whole_number("ring-cap", &o.ring_cap), "records per KV stream; 0 = L + N (0)")(
      "sinks", whole_number("sinks", &o.sinks),
      "first tokens a full-history ring keeps when it wraps (sink + window) (0)")(
      "per-layer", po::bool_switch(&o.per_layer),
      "time and instructions per part of a token (entry, each layer, exit)")(
      "json", po::value(&o.json_file), "write the whole decode report as JSON to FILE")(
      "reference", whole_number("reference", &o.reference_seed),
      "functional check: synthetic weights and KV history of this seed (not 0), logits "
      "compared with the host reference (needs simulation.mode=functional)");
  po::options_description prefill(
      "prefill-plan options (and --model, --tokens, --ring-cap, "
      "--sinks, --json)");
  prefill.add_options()("prompt-tokens", whole_number("prompt-tokens", &o.prompt_tokens),
                        "prompt tokens prefilled, P")(
      "chunk", whole_number("chunk", &o.chunk),
      "prompt rows per chunk, each one pass over every matrix (0: the most the GEMM's "
      "activation buffer holds; decode: and the L2, the default)")(
      "evict", po::bool_switch(&o.evict),
      "let the KV ring drop old tokens when the prompt and the generated tokens exceed "
      "--ring-cap (sink + window)");
  po::options_description table("decode-table options");
  table.add_options()(
      "sweep", po::value<std::vector<std::string>>(&sweeps)->composing(),
      "decode-table: the sweep file (models, contexts, tokens, KV strategies); sweep: an axis "
      "KEY=V1,V2,... (repeatable)")(
      "keep-outputs", po::bool_switch(&o.keep_outputs),
      "decode-table and sweep: each cell or point keeps its outputs (summary, plots, the trace "
      "files named by --trace-* or --set trace.*) in its own folder, DIR/cells/<id>/ or "
      "DIR/points/<k>/")("jobs,j", whole_number("jobs", &o.jobs),
                         "cells or points run at once (default: the number of cores)")(
      "resume", po::bool_switch(&o.resume),
      "decode-table and sweep: skip the cells or points of DIR whose outputs are complete from "
      "an earlier run of the same commands (an interrupted or partly failed run); run the rest");
  po::options_description sweep("sweep options (pccx-vp sweep ... -- COMMAND)");
  sweep.add_options()("sweep-file", po::value(&o.sweep_file),
                      "a file of axes, e.g. configs/sweeps/axes-ddr-weight-fifos.json")(
      "shard", po::value(&shard), "run shard I of N: the points k with k mod N = I")(
      "timeout", po::value(&o.point_timeout_s),
      "wall-clock seconds a point may take before it is killed (default: no limit)");
  po::options_description replay("replay options");
  replay.add_options()("dma", po::value(&o.dma_file),
                       "DMA descriptors (and DDR preloads) the stream needs, a JSON file")(
      "auto-dma", po::value(&auto_dma)->implicit_value(""),
      "queue the DMA descriptors the stream needs (host moves, GEMV/GEMM weight streams) over "
      "buffers in DDR from ADDR on (--auto-dma=ADDR; default 0x40000000)")(
      "keep-going", po::bool_switch(&o.keep_going),
      "clear each NPU error and go on with the stream (default: stop at the first)");
  po::options_description bench("ddr-bench options");
  bench.add_options()(
      "stream", po::value<std::vector<std::string>>(&o.streams)->composing(),
      "a traffic stream KEY=VALUE,...: port (hp0), pattern (sequential, strided, random), size "
      "(64), bytes (64MiB), span (4GiB), stride (8192), reads (1), rate (GB/s, 0 = none), "
      "outstanding (16), seed (1), base (0), class (weights); repeatable, one per port")(
      "requests", po::value(&o.requests_file),
      "replay requests from FILE: TIME_NS PORT ADDRESS BYTES R|W per line");
  po::options_description cmp("compare options");
  cmp.add_options()("html", po::value(&o.html_file),
                    "also write the comparison as a self-contained HTML page to FILE")(
      "fail-above", po::value(&fail_above),
      "exit 1 when a metric moved by more than PCT percent, |B - A| / |A| (a metric in one "
      "folder only counts as moved)")(
      "metric", po::value<std::vector<std::string>>(&o.metrics)->composing(),
      "the metric --fail-above checks, by its name in the report's first column ('*' matches "
      "any run of characters); repeatable; default: every metric");
  po::options_description hidden;
  hidden.add_options()("positional", po::value<std::vector<std::string>>(&positional));
  po::options_description all;
  all.add(general)
      .add(kv)
      .add(dec)
      .add(prefill)
      .add(table)
      .add(sweep)
      .add(replay)
      .add(bench)
      .add(cmp)
      .add(hidden);
  po::positional_options_description pos;
  pos.add("positional", -1);

  // Each command's usage lines and the option groups its --help shows.
  po::options_description dec_tokens("decode options (continued)");
  dec_tokens.add_options()("tokens", po::value<uint32_t>(), "tokens decoded, N (4)");
  const std::vector<std::pair<std::string, std::string>> usage = {
      {"run", "pccx-vp [run] [options]\n"},
      {"disasm", "pccx-vp disasm FILE.memh [--config FILE] [--set KEY=VALUE]\n"},
      {"kv-accuracy", "pccx-vp kv-accuracy [--out DIR] [--tokens N] [--heads N] [--seed S]\n"},
      {"decode",
       "pccx-vp decode --model FILE [--context L] [--prompt-tokens P [--chunk C]] [--tokens N]\n"
       "               [--ring-cap C] [--sinks S] [--per-layer] [--json FILE] [--reference "
       "SEED]\n"},
      {"decode-table",
       "pccx-vp decode-table --sweep FILE --out DIR [--jobs J] [--keep-outputs] [--resume]\n"
       "               [--config FILE] [--set KEY=VALUE]\n"},
      {"sweep",
       "pccx-vp sweep [--sweep KEY=V1,V2,...]... [--sweep-file FILE] --out DIR\n"
       "               [--jobs J] [--shard I/N] [--timeout S] [--keep-outputs] [--resume]\n"
       "               [--config FILE] [--set KEY=VALUE] -- COMMAND...\n"},
      {"merge", "pccx-vp merge DIR_OR_FILE... --out DIR\n"},
      {"replay",
       "pccx-vp replay FILE.memh [--dma FILE.json] [--auto-dma[=ADDR]] [--keep-going]\n"
       "               [--json FILE] [--trace-instructions FILE] [--config FILE] [--set "
       "KEY=VALUE]\n"},
      {"ddr-bench",
       "pccx-vp ddr-bench [--stream SPEC]... [--requests FILE] [--json FILE]\n"
       "               [--config FILE] [--set KEY=VALUE]\n"},
      {"prefill-plan",
       "pccx-vp prefill-plan --model FILE --prompt-tokens P [--chunk C] [--tokens N]\n"
       "               [--ring-cap C] [--sinks S] [--evict] [--json FILE] [--config FILE]\n"
       "               [--set KEY=VALUE]\n"},
      {"compare", "pccx-vp compare A B [--html FILE] [--fail-above PCT] [--metric NAME]...\n"}};
  const auto help_of = [&](const std::string& command) {
    std::ostringstream h;
    if (command.empty()) {  // every command
      h << "usage: pccx-vp [run] [options]\n"
           "       pccx-vp disasm FILE.memh [--config FILE] [--set KEY=VALUE]\n"
           "       pccx-vp kv-accuracy [--out DIR] [--tokens N] [--heads N] [--seed S]\n"
           "       pccx-vp decode --model FILE [--context L] [--prompt-tokens P [--chunk C]] "
           "[--tokens N]\n"
           "                      [--ring-cap C] [--sinks S] [--per-layer] [--json FILE] "
           "[--reference SEED]\n"
           "       pccx-vp decode-table --sweep FILE --out DIR [--jobs J] [--keep-outputs] "
           "[--resume]\n"
           "                      [--config FILE] [--set KEY=VALUE]\n"
           "       pccx-vp sweep [--sweep KEY=V1,V2,...]... [--sweep-file FILE] --out DIR\n"
           "                      [--jobs J] [--shard I/N] [--timeout S] [--keep-outputs] "
           "[--resume]\n"
           "                      [--config FILE]\n"
           "                      [--set KEY=VALUE] -- COMMAND...\n"
           "       pccx-vp merge DIR_OR_FILE... --out DIR\n"
           "       pccx-vp replay FILE.memh [--dma FILE.json] [--auto-dma[=ADDR]] [--keep-going]\n"
           "                      [--json FILE] [--trace-instructions FILE] [--config FILE] [--set "
           "KEY=VALUE]\n"
           "       pccx-vp ddr-bench [--stream SPEC]... [--requests FILE] [--json FILE]\n"
           "                      [--config FILE] [--set KEY=VALUE]\n"
           "       pccx-vp prefill-plan --model FILE --prompt-tokens P [--chunk C] [--tokens N]\n"
           "                      [--ring-cap C] [--sinks S] [--evict] [--json FILE]\n"
           "                      [--config FILE] [--set KEY=VALUE]\n"
           "       pccx-vp compare A B [--html FILE] [--fail-above PCT] [--metric NAME]...\n\n"
        << general << kv << dec << prefill << table << sweep << replay << bench << cmp;
      return h.str();
    }
    for (const auto& [name, text] : usage)
      if (name == command) h << "usage: " << text << '\n';
    h << general;
    if (command == "kv-accuracy") h << kv;
    if (command == "decode") h << dec << dec_tokens;
    if (command == "decode-table" || command == "sweep") h << table;
    if (command == "sweep") h << sweep;
    if (command == "replay") h << replay;
    if (command == "ddr-bench") h << bench;
    if (command == "prefill-plan") h << prefill << dec;
    if (command == "compare") h << cmp;
    return h.str();
  };
  // --help anywhere wins over everything else on the line, valid or not:
  // the help of the command named, or of them all.
  for (int i = 1; i < own; ++i) {
    const std::string a = argv[i];
    if (a != "--help" && a != "-h") continue;
    std::string command;
    for (int j = 1; j < own && command.empty(); ++j)
      for (const auto& u : usage)
        if (u.first == argv[j]) command = u.first;
    o.cmd = cli_options::command::help;
    o.help_text = help_of(command);
    return o;
  }

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(own, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw cli_error(e.what());
  }

  o.help_text = help_of("");

  if (vm.count("help"))
    o.cmd = cli_options::command::help;
  else if (vm.count("version"))
    o.cmd = cli_options::command::version;
  else if (vm.count("list-firmware"))
    o.cmd = cli_options::command::list_firmware;

  if (!positional.empty()) {
    if (positional[0] == "disasm") {
      if (positional.size() != 2) throw cli_error("disasm takes exactly one .memh file");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::disasm;
      o.disasm_file = positional[1];
    } else if (positional[0] == "kv-accuracy") {
      if (positional.size() != 1) throw cli_error("kv-accuracy takes no file arguments");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::kv_accuracy;
    } else if (positional[0] == "decode") {
      if (positional.size() != 1) throw cli_error("decode takes no file arguments (--model FILE)");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::decode;
    } else if (positional[0] == "decode-table") {
      if (positional.size() != 1)
        throw cli_error("decode-table takes no file arguments (--sweep FILE --out DIR)");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::decode_table;
    } else if (positional[0] == "sweep") {
      if (positional.size() != 1)
        throw cli_error(
            "sweep takes no file arguments (--sweep KEY=V1,V2,... --out DIR -- COMMAND)");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::sweep;
    } else if (positional[0] == "merge") {
      if (positional.size() < 2)
        throw cli_error("merge needs the sweep folders or points files to merge");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::merge;
      o.inputs.assign(positional.begin() + 1, positional.end());
    } else if (positional[0] == "replay") {
      if (positional.size() != 2) throw cli_error("replay takes exactly one .memh file");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::replay;
      o.replay_file = positional[1];
    } else if (positional[0] == "ddr-bench") {
      if (positional.size() != 1)
        throw cli_error("ddr-bench takes no file arguments (--stream SPEC, --requests FILE)");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::ddr_bench;
    } else if (positional[0] == "prefill-plan") {
      if (positional.size() != 1)
        throw cli_error("prefill-plan takes no file arguments (--model FILE)");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::prefill_plan;
    } else if (positional[0] == "compare") {
      if (positional.size() != 3)
        throw cli_error("compare takes two output folders: pccx-vp compare A B");
      if (o.cmd == cli_options::command::run) o.cmd = cli_options::command::compare;
      o.inputs.assign(positional.begin() + 1, positional.end());
    } else if (positional[0] != "run" || positional.size() != 1) {
      throw cli_error("unknown command '" + pccx::text::escaped(positional[0]) +
                      "' (commands: run, disasm, kv-accuracy, decode, decode-table, sweep, merge, "
                      "replay, ddr-bench, prefill-plan, compare)");
    }
  }
  if (o.keep_outputs && o.cmd != cli_options::command::decode_table &&
      o.cmd != cli_options::command::sweep)
    throw cli_error("--keep-outputs is for decode-table and sweep");
  if (o.resume && o.cmd != cli_options::command::decode_table &&
      o.cmd != cli_options::command::sweep)
    throw cli_error("--resume is for decode-table and sweep");
  if (vm.count("auto-dma")) {
    if (o.cmd != cli_options::command::replay) throw cli_error("--auto-dma is for replay");
    o.auto_dma = true;
    o.auto_dma_base = workload::kAutoDmaBase;
    if (!auto_dma.empty()) {
      std::size_t used = 0;
      try {
        o.auto_dma_base = std::stoull(auto_dma, &used, 0);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != auto_dma.size() || auto_dma[0] == '-')
        throw cli_error("--auto-dma=" + auto_dma +
                        ": expected a DDR address, e.g. --auto-dma=0x40000000");
    }
  }
  if (!o.point_command.empty() && o.cmd != cli_options::command::sweep)
    throw cli_error("'--' is for sweep: pccx-vp sweep ... -- COMMAND");
  if (vm.count("jobs") && (o.jobs == 0 || o.jobs > 1024))
    throw cli_error("--jobs must be from 1 to 1024");
  if ((!o.streams.empty() || !o.requests_file.empty()) && o.cmd != cli_options::command::ddr_bench)
    throw cli_error("--stream and --requests are for ddr-bench");
  if ((vm.count("html") || vm.count("fail-above") || !o.metrics.empty()) &&
      o.cmd != cli_options::command::compare)
    throw cli_error("--html, --fail-above and --metric are for compare");
  if (o.cmd == cli_options::command::compare) {
    if (vm.count("html") && o.html_file.empty()) throw cli_error("--html needs a file name");
    if (vm.count("fail-above")) {
      // A percentage: a finite number, 0 or more ("5" is 5 %).
      const char* text = fail_above.c_str();
      char* end = nullptr;
      const double pct = std::strtod(text, &end);
      if (fail_above.empty() || end != text + fail_above.size() || !std::isfinite(pct) || pct < 0 ||
          std::isspace(static_cast<unsigned char>(fail_above[0])))
        throw cli_error("--fail-above " + pccx::text::escaped(fail_above) +
                        ": expected a percentage, a number 0 or more (e.g. 5 for 5 %)");
      o.fail_above = pct;
    } else if (!o.metrics.empty()) {
      throw cli_error("--metric chooses the metrics --fail-above checks; give --fail-above PCT");
    }
    if (!out_dir.empty())
      throw cli_error("compare writes no output folder (--html FILE writes the report as a page)");
  }
  if (o.cmd == cli_options::command::kv_accuracy) {
    if (o.kv_tokens < 2) throw cli_error("--tokens must be at least 2");
    if (o.kv_heads == 0) throw cli_error("--heads must be at least 1");
    o.out_dir = out_dir;
  }
  o.firmware_given = vm.count("firmware") > 0;
  if (vm.count("gdb") && (o.gdb_port == 0 || o.gdb_port > 65535))
    throw cli_error("--gdb " + std::to_string(o.gdb_port) + ": a TCP port is 1 to 65535");
  if (o.cmd == cli_options::command::decode) {
    if (o.model.empty()) throw cli_error("decode needs --model FILE");
    o.decode_tokens = vm.count("tokens") ? o.kv_tokens : 4;
    if (o.decode_tokens == 0 && o.prompt_tokens == 0)
      throw cli_error("--tokens must be at least 1 (0 only after --prompt-tokens: the prompt alone)");
  }
  if (vm.count("prompt-tokens") && o.cmd != cli_options::command::prefill_plan &&
      o.cmd != cli_options::command::decode)
    throw cli_error("--prompt-tokens is for decode and prefill-plan");
  if (vm.count("chunk") && o.cmd != cli_options::command::prefill_plan &&
      o.cmd != cli_options::command::decode)
    throw cli_error("--chunk is for decode and prefill-plan");
  if (vm.count("chunk") && o.cmd == cli_options::command::decode && o.prompt_tokens == 0)
    throw cli_error("--chunk needs --prompt-tokens P (the rows of the prompt per chunk)");
  if (o.evict && o.cmd != cli_options::command::prefill_plan)
    throw cli_error("--evict is for prefill-plan");
  if (o.cmd == cli_options::command::prefill_plan) {
    if (o.model.empty()) throw cli_error("prefill-plan needs --model FILE");
    if (o.prompt_tokens == 0) throw cli_error("prefill-plan needs --prompt-tokens P (at least 1)");
    o.decode_tokens = vm.count("tokens") ? o.kv_tokens : 0;
  }
  if (o.cmd == cli_options::command::decode_table) {
    if (sweeps.size() != 1) throw cli_error("decode-table needs one --sweep FILE");
    o.sweep = sweeps.front();
    if (out_dir.empty()) throw cli_error("decode-table needs --out DIR");
    // The table's folder, not output.dir: the cells' runs write no summary.
    o.out_dir = out_dir;
    out_dir.clear();
  } else if (o.cmd == cli_options::command::sweep) {
    o.axes = sweeps;
    if (o.axes.empty() && o.sweep_file.empty())
      throw cli_error("sweep needs axes: --sweep KEY=V1,V2,... or --sweep-file FILE");
    if (out_dir.empty()) throw cli_error("sweep needs --out DIR");
    if (o.point_command.empty())
      throw cli_error(
          "sweep needs the command its points run after '--', e.g. -- decode --model "
          "configs/models/tiny.json or -- --firmware memset_sync");
    if (!shard.empty()) {
      unsigned long i = 0, n = 0;
      char tail = 0;
      if (std::sscanf(shard.c_str(), "%lu/%lu%c", &i, &n, &tail) != 2 || n == 0 || i >= n ||
          n > 1000000)
        throw cli_error("--shard " + shard + ": expected I/N with 0 <= I < N, e.g. --shard 0/4");
      o.shard_index = static_cast<uint32_t>(i);
      o.shard_count = static_cast<uint32_t>(n);
      o.sharded = true;
    }
    if (o.point_timeout_s < 0) throw cli_error("--timeout must be at least 0");
    o.out_dir = out_dir;
    out_dir.clear();
  } else if (o.cmd == cli_options::command::merge) {
    if (out_dir.empty()) throw cli_error("merge needs --out DIR");
    o.out_dir = out_dir;
    out_dir.clear();
  } else if (!sweeps.empty()) {
    throw cli_error("--sweep is for decode-table and sweep");
  }

  o.layers.sets = sets;
  if (strict) o.layers.sets.push_back("simulation.strict=true");
  if (!lint.empty()) o.layers.sets.push_back("simulation.lint=" + nlohmann::json(lint).dump());
  if (!log_level.empty()) o.layers.sets.push_back("log.level=" + log_level);
  if (!trace_mmio.empty())
    o.layers.sets.push_back("trace.mmio=" + nlohmann::json(trace_mmio).dump());
  if (!trace_instr.empty())
    o.layers.sets.push_back("trace.instructions=" + nlohmann::json(trace_instr).dump());
  if (!trace_ddr.empty()) o.layers.sets.push_back("trace.ddr=" + nlohmann::json(trace_ddr).dump());
  if (!out_dir.empty()) o.layers.sets.push_back("output.dir=" + nlohmann::json(out_dir).dump());
  for (const auto& l : logs) {
    // Module names contain dots, so they travel as a JSON object, not a key path.
    const auto eq = l.find('=');
    if (eq == std::string::npos || eq == 0)
      throw cli_error("--log " + l + ": expected MODULE=LEVEL, e.g. npu.cmd=debug");
    nlohmann::json obj = {{l.substr(0, eq), l.substr(eq + 1)}};
    o.layers.sets.push_back("log.modules=" + obj.dump());
  }
  return o;
}

}  // namespace pccx::app
