//! The task core alone (no Python): what the allocator is worth. Prints one line per workload,
//! `name seconds`, best of five runs; `benchmarks/bench_crates.py` runs it with and without the
//! `mimalloc` feature and prints the ratios.

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

fn main() {
    let n = 100_000;
    println!("build_chain_100k {:.6}", best(|| drop(chain(n))));
    let json = chain(n).to_json();
    println!(
        "from_json_100k {:.6}",
        best(|| drop(TaskGraph::from_json(&json, |_| None).expect("valid")))
    );
    let g = TaskGraph::from_json(&json, |_| None).expect("valid");
    println!("validate_100k {:.6}", best(|| drop(g.validate())));
}
