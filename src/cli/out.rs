//! Standard output for the CLI: [`outln!`](crate::outln) and [`out!`](crate::out) write like
//! `println!`/`print!`, and a closed pipe (`kraftwerk catalog | head`) ends the process quietly
//! with exit 0, as command-line tools do on SIGPIPE. The pipe is recognised by its
//! `io::ErrorKind::BrokenPipe`, without touching signal handlers (which needs `unsafe`); any other
//! write error is printed and exits 2 (as `completions` and `man` do).

use std::io::Write;

/// Writes `args` (and a newline when `newline`) to stdout; see the module docs for errors.
pub fn write(args: std::fmt::Arguments<'_>, newline: bool) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| if newline { out.write_all(b"\n") } else { Ok(()) });
    if let Err(e) = written {
        exit_on(&e);
    }
}

/// Flushes stdout (before the process exits with a code); see the module docs for errors.
pub fn flush() {
    if let Err(e) = std::io::stdout().lock().flush() {
        exit_on(&e);
    }
}

fn exit_on(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("kraftwerk: cannot write to standard output: {e}");
    std::process::exit(2);
}

/// `println!` for the CLI: a closed pipe exits quietly (see [`crate::cli::out`]).
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::out::write(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!($($arg)*), true) };
}

/// `print!` for the CLI: a closed pipe exits quietly (see [`crate::cli::out`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!($($arg)*), false) };
}
