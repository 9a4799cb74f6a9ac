use hydra_session_lsp::{cli, mcp, server};

fn main() {
    fixed_mmap_threshold();
    let status = match cli::main() {
        cli::Invocation::Server { no_search_index } => {
            server::run_stdio(server::ServerOptions { no_search_index })
        }
        cli::Invocation::Mcp(request) => mcp::run(request),
        cli::Invocation::Done(status) => status,
    };
    std::process::exit(status);
}

/// Keeps glibc's allocator from holding on to large freed blocks.
///
/// glibc serves a block of 128 KiB or more with its own mapping, returned
/// to the system when freed — but each such free raises that threshold to
/// the block's size (up to 32 MiB), after which large temporary vectors
/// (an index of 100,000 sessions builds several of 5–15 MB) come from the
/// heap and stay resident once freed: a third of the server's memory on a
/// large store. Setting the threshold explicitly turns that adjustment off.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    const M_MMAP_THRESHOLD: i32 = -3;
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    // SAFETY: `mallopt` only changes allocator parameters; it is called
    // once, before any other thread exists.
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fixed_mmap_threshold() {}
