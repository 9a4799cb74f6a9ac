//! The few ways the program opens and creates files, so every face gets
//! the same guarantees: opening never blocks (a FIFO or a device swapped
//! in for a log answers at once), a file is checked *after* it is opened
//! (what was checked is what is read), and everything the program writes
//! is created exclusively, owner-only, never through a link.
//!
//! Also: whether one folder is inside another however either path is
//! written (so nothing is ever written into a session store).
//!
//! The bottom layer beside `model`: it knows nothing of sessions.

mod inside;
mod open;
mod private;
mod read;

pub use inside::is_inside;
pub use open::{open_nonblocking, open_regular, opened_path, Links};
pub use private::{
    create_private_dir_all, is_temp_name, make_private_dir, make_private_file, owned_by_me,
    private_temp_file, refuse_shared_dir, DirRefused,
};
pub use read::read_side_file;
