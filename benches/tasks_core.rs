//! The task core alone (no Python): what each performance crate is worth. Prints one line per
//! workload, `name seconds` (best of five runs), and first `rss_chain_100k_bytes bytes`: how much
//! the resident set grows while a 100,000-task chain is held (measured before anything else
//! runs, so no freed memory is reused); `benchmarks/bench_crates.py` runs it with and without
//! each crate and prints the ratios.

#![allow(clippy::print_stdout, reason = "a benchmark's figures are its output")]

use std::time::Instant;

use planmode::core::tasks::{TaskGraph, UpdateRequest};

fn best(mut run: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t0 = Instant::now();
            run();
            t0.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn chain(n: usize) -> TaskGraph {
    let mut g = TaskGraph::new(|_| None);
    for i in 1..=n {
        g.create("task".into(), String::new(), Default::default(), Some("t".into()));
        if i > 1 {
            let prev = [(i - 1).to_string()];
            let req = UpdateRequest {
                add_blocked_by: Some(&prev),
                ..Default::default()
            };
            g.update(&i.to_string(), &req, None)
                .expect("a chain has no cycle");
        }
    }
    g
}

/// The resident set size of this process, from /proc/self/statm (pages of 4 KiB).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("Linux /proc");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("statm has a resident field");
    pages * 4096
}

fn main() {
    let n = 100_000;
    let before = rss_bytes();
    let held = chain(n);
    println!("rss_chain_100k_bytes {}", rss_bytes() - before);
    drop(held);
    println!("build_chain_100k {:.6}", best(|| drop(chain(n))));
    let json = chain(n).to_json();
    println!(
        "from_json_100k {:.6}",
        best(|| drop(TaskGraph::from_json(&json, |_| None).expect("valid")))
    );
    let g = TaskGraph::from_json(&json, |_| None).expect("valid");
    println!("validate_100k {:.6}", best(|| drop(g.validate())));
}
