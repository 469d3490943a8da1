#[test]
fn explore() {
    let inputs: Vec<String> = std::fs::read_to_string(std::env::var("EXPLORE").unwrap()).unwrap().split("\n---\n").map(|s| s.to_string()).collect();
    for i in &inputs {
        let t = std::time::Instant::now();
        let v = planmode::core::shell::classify(i);
        eprintln!("{:?} ({:?}) -> {} {}", i, t.elapsed(), v.read_only, v.reason);
    }
}
