//! lfbloom-fastbloom-bench: the Rust crate fastbloom's `AtomicBloomFilter` (its lock-free,
//! `Sync` filter) timed on exactly the keys lfbloom-bench (bench/bench.cpp) times, with the same
//! repetitions, median and clear/refill, printing the same JSON lines (layout "fastbloom-atomic"),
//! so bench/report.py can put both runs in one table.
//!
//! fastbloom has no batch call (`insert_all` is a loop of `insert`, and there is no batch
//! `contains`), so every figure here is of single calls (batch 1).

use fastbloom::AtomicBloomFilter;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::Instant;

/// The version in Cargo.toml (`=0.17.0`) and Cargo.lock; a test checks that the three agree.
const FASTBLOOM_VERSION: &str = "0.17.0";
const LAYOUT: &str = "fastbloom-atomic";
const P: f64 = 0.01;
const CACHE_KEYS: u64 = 1_000_000;
const DRAM_KEYS: u64 = 2_000_000;
const DRAM_HASHES: u32 = 7; // as lfbloom-bench's blocked_bloom_filter::with_geometry(bits, 7)

struct Settings {
    json: bool,
    quick: bool,
    repetitions: u32,
    dram_bytes: u64,
    only: String, // run only cases whose name contains this
}

impl Settings {
    fn wanted(&self, name: &str) -> bool {
        self.only.is_empty() || name.contains(&self.only)
    }
}

// ---- keys and timing ---------------------------------------------------------------------------

/// bench.cpp's `key_set(count, bytes, seed)`, byte for byte: `count` keys of `bytes` bytes each,
/// contiguous, from one xorshift stream (present keys seed 1, absent keys seed 2).
struct KeySet {
    bytes: usize,
    data: Vec<u8>,
}

impl KeySet {
    fn new(count: u64, bytes: usize, seed: u64) -> Self {
        let mut data = vec![0u8; count as usize * bytes];
        let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15).wrapping_add(1);
        for b in data.iter_mut() {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            *b = (x.wrapping_mul(0x2545F4914F6CDD1D) >> 56) as u8;
        }
        KeySet { bytes, data }
    }
    fn len(&self) -> u64 {
        (self.data.len() / self.bytes) as u64
    }
    #[inline(always)]
    fn get(&self, i: u64) -> &[u8] {
        let at = i as usize * self.bytes;
        &self.data[at..at + self.bytes]
    }
}

/// Runs body(begin, end) over [0, ops) split across `threads`; returns (wall seconds, summed
/// hits). With threads, each worker stamps its own start and end after a common barrier, and
/// the time is from the first worker's start to the last worker's end.
fn timed<F: Fn(u64, u64) -> u64 + Sync>(threads: u64, ops: u64, body: F) -> (f64, u64) {
    if threads == 1 {
        let t0 = Instant::now();
        let hits = body(0, ops);
        return (t0.elapsed().as_secs_f64(), hits);
    }
    let start = Barrier::new(threads as usize);
    let stamps: Vec<(Instant, Instant, u64)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (start, body) = (&start, &body);
                s.spawn(move || {
                    start.wait();
                    let t0 = Instant::now();
                    let hits = body(ops * t / threads, ops * (t + 1) / threads);
                    (t0, Instant::now(), hits)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker panicked")).collect()
    });
    let first = stamps.iter().map(|s| s.0).min().unwrap();
    let last = stamps.iter().map(|s| s.1).max().unwrap();
    (last.duration_since(first).as_secs_f64(), stamps.iter().map(|s| s.2).sum())
}

struct Result<'a> {
    op: &'a str,
    size: &'a str,
    threads: u64,
    keys: u64,
    key_bytes: usize,
    bytes: u64,
    ns_per_op: f64,
    fpr: Option<f64>,
}

fn case_name(op: &str, size: &str, key_bytes: usize, threads: u64) -> String {
    // fastbloom has no batch call: always "single" (batch 1).
    format!("{LAYOUT}/{op}/{size}/{key_bytes}B/single/{threads}t")
}

/// bench.cpp's report(): the same fields, order and number formats.
fn report(cfg: &Settings, r: &Result) {
    let name = case_name(r.op, r.size, r.key_bytes, r.threads);
    let mut line = if cfg.json {
        format!(
            "{{\"name\":\"{name}\",\"layout\":\"{LAYOUT}\",\"op\":\"{}\",\"size\":\"{}\",\"threads\":{},\"keys\":{},\
             \"key_bytes\":{},\"batch\":1,\"ns_per_op\":{:.3},\"ops_per_sec\":{:.0},\"bytes\":{}",
            r.op, r.size, r.threads, r.keys, r.key_bytes, r.ns_per_op, 1e9 / r.ns_per_op, r.bytes
        )
    } else {
        format!("{name:<58} {:>9.2} ns/op {:>8.2} Mops/s", r.ns_per_op, 1e3 / r.ns_per_op)
    };
    if let Some(fpr) = r.fpr {
        line += &if cfg.json { format!(",\"fpr\":{fpr:.6}") } else { format!("  fpr {:.4}%", 100.0 * fpr) };
    }
    if cfg.json {
        line.push('}');
    }
    println!("{line}"); // println! on stdout is line-buffered: each result appears as it is made
}

// ---- the cases ---------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    ContainsPresent,
    ContainsAbsent,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::ContainsPresent => "contains-present",
            Op::ContainsAbsent => "contains-absent",
        }
    }
}

/// Runs `op` over keys [begin, end) with single calls. Returns hits (for add: how many keys
/// fastbloom reports as possibly present already).
fn apply(f: &AtomicBloomFilter, op: Op, keys: &KeySet, begin: u64, end: u64) -> u64 {
    let mut hits = 0u64;
    if op == Op::Add {
        for i in begin..end {
            hits += f.insert(keys.get(i)) as u64;
        }
    } else {
        for i in begin..end {
            hits += f.contains(keys.get(i)) as u64;
        }
    }
    hits
}

/// bench.cpp's run_ops for one filter: every (op, threads) of `ops` x `thread_counts`, each the
/// median of cfg.repetitions runs, with bench.cpp's prepare before each run (add: an empty
/// filter; contains: the filter cleared and filled with the present keys).
#[allow(clippy::too_many_arguments)]
fn run_ops(cfg: &Settings, f: &AtomicBloomFilter, size: &str, keys: u64, ops: &[Op], key_bytes: usize, thread_counts: &[u64], sink: &mut u64) {
    let cases: Vec<(Op, u64)> = ops
        .iter()
        .flat_map(|&op| thread_counts.iter().map(move |&t| (op, t)))
        .filter(|&(op, t)| cfg.wanted(&case_name(op.name(), size, key_bytes, t)))
        .collect();
    if cases.is_empty() {
        return;
    }
    let (present, absent) = (KeySet::new(keys, key_bytes, 1), KeySet::new(keys, key_bytes, 2));
    let bytes = (f.as_slice().len() * 8) as u64;
    for (op, threads) in cases {
        let run_keys = if op == Op::ContainsAbsent { &absent } else { &present };
        let mut ns = Vec::new();
        let mut hits = 0;
        for _ in 0..cfg.repetitions {
            f.clear(); // prepare
            if op != Op::Add {
                for i in 0..present.len() {
                    f.insert(present.get(i));
                }
            }
            let (seconds, h) = timed(threads, keys, |b, e| apply(f, op, run_keys, b, e));
            ns.push(seconds * 1e9 / keys as f64);
            hits = h;
        }
        ns.sort_by(|a, b| a.partial_cmp(b).unwrap());
        *sink = sink.wrapping_add(hits);
        let fpr = (op == Op::ContainsAbsent).then(|| hits as f64 / keys as f64);
        report(cfg, &Result { op: op.name(), size, threads, keys, key_bytes, bytes, ns_per_op: ns[ns.len() / 2], fpr });
    }
}

fn run_all(cfg: &Settings) -> u64 {
    let mut sink = 0u64;
    let key_sizes: &[usize] = if cfg.quick { &[16] } else { &[8, 16, 64] };
    let single_ops = [Op::Add, Op::ContainsPresent, Op::ContainsAbsent];

    // In cache: sized by fastbloom's own builder for (n, p), one fresh filter per key size
    // (as bench.cpp's blocked_bloom_filter::for_capacity).
    for &kb in key_sizes {
        if !single_ops.iter().any(|op| cfg.wanted(&case_name(op.name(), "cache", kb, 1))) {
            continue;
        }
        let f = AtomicBloomFilter::with_false_pos(P).expected_items(CACHE_KEYS as usize);
        if !cfg.json {
            eprintln!("# cache, {kb}B keys: {} bits ({} bytes), k = {}", f.num_bits(), f.as_slice().len() * 8, f.num_hashes());
        }
        run_ops(cfg, &f, "cache", CACHE_KEYS, &single_ops, kb, &[1], &mut sink);
    }
    if cfg.quick {
        return sink;
    }

    // Far beyond the last-level cache: one filter of cfg.dram_bytes with k = 7, shared by all the
    // dram cases (as bench.cpp's blocked_bloom_filter::with_geometry(bits, 7)).
    let threaded_ops = [Op::Add, Op::ContainsAbsent];
    let any_dram = key_sizes.iter().any(|&kb| single_ops.iter().any(|op| cfg.wanted(&case_name(op.name(), "dram", kb, 1))))
        || threaded_ops.iter().any(|op| cfg.wanted(&case_name(op.name(), "dram", 16, 2)));
    if !any_dram {
        return sink;
    }
    let f = AtomicBloomFilter::with_num_bits(cfg.dram_bytes as usize * 8).hashes(DRAM_HASHES);
    if !cfg.json {
        eprintln!("# dram: {} bits ({} bytes), k = {}", f.num_bits(), f.as_slice().len() * 8, f.num_hashes());
    }
    for &kb in key_sizes {
        run_ops(cfg, &f, "dram", DRAM_KEYS, &single_ops, kb, &[1], &mut sink);
    }
    run_ops(cfg, &f, "dram", DRAM_KEYS, &threaded_ops, 16, &[2], &mut sink);
    sink
}

// ---- flags -------------------------------------------------------------------------------------

const USAGE: &str = "lfbloom-fastbloom-bench: fastbloom's AtomicBloomFilter on lfbloom-bench's keys
  -h [ --help ]              this text
  --json                     one JSON object per result line
  --quick                    in cache only, 16-byte keys, 3 repetitions unless given
  --repetitions N (=5)       runs per figure (the median is reported)
  --dram-bytes N (=2147483648)
                             size of the beyond-cache filter
  --only SUBSTRING           run only the cases whose name contains this";

fn parse(args: &[String]) -> std::result::Result<Option<Settings>, String> {
    let mut cfg = Settings { json: false, quick: false, repetitions: 5, dram_bytes: 2 << 30, only: String::new() };
    let mut repetitions_given = false;
    let mut i = 0;
    while i < args.len() {
        let (flag, inline) = match args[i].split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (args[i].as_str(), None),
        };
        let mut value = || -> std::result::Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("the required argument for option '{flag}' is missing"))
        };
        let number = |v: String| v.parse::<u64>().map_err(|_| format!("the argument ('{v}') for option '{flag}' is invalid"));
        match flag {
            "-h" | "--help" => return Ok(None),
            "--json" => cfg.json = true,
            "--quick" => cfg.quick = true,
            "--repetitions" => {
                cfg.repetitions = u32::try_from(number(value()?)?).map_err(|_| format!("'{flag}' is out of range"))?;
                repetitions_given = true;
            }
            "--dram-bytes" => cfg.dram_bytes = number(value()?)?,
            "--only" => cfg.only = value()?,
            other => return Err(format!("unrecognised option '{other}'")),
        }
        i += 1;
    }
    if cfg.quick && !repetitions_given {
        cfg.repetitions = 3;
    }
    cfg.repetitions = cfg.repetitions.max(1);
    if cfg.dram_bytes < 8 {
        return Err("'--dram-bytes' must be at least 8".into());
    }
    Ok(Some(cfg))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = match parse(&args) {
        Ok(Some(cfg)) => cfg,
        Ok(None) => {
            println!("{USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("lfbloom-fastbloom-bench: {e}");
            std::process::exit(2);
        }
    };
    if !cfg.json {
        eprintln!("# fastbloom {FASTBLOOM_VERSION} AtomicBloomFilter, default hasher (SipHash-1-3, random key), single calls");
    }
    let sink = black_box(run_all(&cfg));
    std::process::exit(if sink == 42 { 3 } else { 0 }); // never 42 in practice; the result must be used
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// The first keys of bench.cpp's key_set, printed by a program that includes bench/bench.cpp.
    #[test]
    fn keys_match_bench_cpp() {
        let present = KeySet::new(4, 16, 1);
        let expect = ["8006bf6d8b3842b4c7b2c6a4e92f603c", "19956a5f1f69753e20d8bcf9a2247bbc",
                      "acda41f0df0c69c5c88bab418f2e915d", "b31a459b9db44cc87166ab9d87f83368"];
        for (i, e) in expect.iter().enumerate() {
            assert_eq!(hex(present.get(i as u64)), *e);
        }
        let absent = KeySet::new(4, 16, 2);
        let expect = ["0f1e850e99e0dd405929d977ce1c4103", "595298102f3af0874807977626f81c1e",
                      "b516698722c4057266c23f4fcaa91ad4", "82cca11f36b0dd911960b6c474d70288"];
        for (i, e) in expect.iter().enumerate() {
            assert_eq!(hex(absent.get(i as u64)), *e);
        }
        assert_eq!(hex(KeySet::new(3, 8, 1).get(2)), "19956a5f1f69753e");
        assert_eq!(
            hex(KeySet::new(2, 64, 2).get(1)),
            "69ea1b0c4a90c1814343bee5c5fc5ad19cdbb88fdb35f42145cd04a4cf4d49a5\
             99de79161ab5dfbca130f76f9ad885f8e77cac0b662b00528788db65a9f5989e"
        );
    }

    /// FNV-1a of whole key sets of the benchmark's size, from the same C++ program.
    #[test]
    fn whole_key_sets_match_bench_cpp() {
        for (seed, kb, expect) in [(1, 8, 0x99dba60b12c74695u64), (1, 16, 0x48f8c6c2ab15b090), (1, 64, 0x3a8918898e787f44),
                                   (2, 8, 0xa0f4e5a7074e102a), (2, 16, 0xec012fa7bd787468), (2, 64, 0x503ce7a28a56e78b)] {
            let keys = KeySet::new(1_000_000, kb, seed);
            let fnv = keys.data.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3));
            assert_eq!(fnv, expect, "seed {seed}, {kb}-byte keys");
        }
    }

    #[test]
    fn version_is_the_pinned_one() {
        assert!(include_str!("../Cargo.toml").contains(&format!("fastbloom = \"={FASTBLOOM_VERSION}\"")));
        assert!(include_str!("../Cargo.lock").contains(&format!("name = \"fastbloom\"\nversion = \"{FASTBLOOM_VERSION}\"")));
    }

    #[test]
    fn flags() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let c = parse(&args("--quick")).unwrap().unwrap();
        assert!(c.quick && c.repetitions == 3 && !c.json);
        let c = parse(&args("--quick --repetitions 7 --json --only dram --dram-bytes=1024")).unwrap().unwrap();
        assert!(c.repetitions == 7 && c.json && c.only == "dram" && c.dram_bytes == 1024);
        assert!(parse(&args("--repetitions")).is_err());
        assert!(parse(&args("--bogus")).is_err());
        assert!(parse(&args("--help")).unwrap().is_none());
    }

    #[test]
    fn threads_split_and_sum() {
        let (_, hits) = timed(2, 1001, |b, e| e - b);
        assert_eq!(hits, 1001);
    }
}
