//! `agentrep-fuzz list`: the targets, one name per line, with what each drives.
//! `agentrep-fuzz run <target> <file>...`: runs files through a target without libFuzzer, to
//! reproduce a crash it found.
//! `agentrep-fuzz seed-routes <corpus>`: writes the route targets' seeds from the route table's
//! schemas: for each route, one query string or body with a plausible value for every field.

mod seed;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("list") => {
            for target in agentrep_fuzz::TARGETS {
                println!("{}\t{}", target.name, target.drives);
            }
        }
        Some("run") if args.len() >= 3 => {
            let Some(target) = agentrep_fuzz::target(&args[1]) else {
                eprintln!("no target {:?}; `list` names them", args[1]);
                return std::process::ExitCode::from(2);
            };
            for file in &args[2..] {
                let input = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
                (target.run)(&input);
                println!("{file}: ok");
            }
        }
        Some("seed-routes") if args.len() == 2 => {
            let written = seed::write_route_seeds(std::path::Path::new(&args[1])).expect("writing the seeds");
            println!("{written} seeds written");
        }
        _ => {
            eprintln!("usage: agentrep-fuzz list | run <target> <file>... | seed-routes <corpus>");
            return std::process::ExitCode::from(2);
        }
    }
    std::process::ExitCode::SUCCESS
}
