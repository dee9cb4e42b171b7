//! The progress of a long run on stderr: a bar on a terminal, else a line every
//! [`PROGRESS_EVERY`] (a log, a pipe), so that a run of a few seconds prints nothing.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, WeakProgressBar};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often a run whose stderr is not a terminal says how far it has got: rarely
/// enough that a run of a few seconds (every test) prints nothing and a log of a long
/// one stays short, often enough to show that it is alive. Guess.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// A bar over all kernel runs on stderr where stderr is a terminal; elsewhere (a log, a
/// pipe) a line every [`PROGRESS_EVERY`] while the run lasts.
pub(crate) fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        let bar = ProgressBar::hidden();
        bar.set_length(total);
        report_progress(bar.downgrade());
        return bar;
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("[{elapsed_precise}] {wide_bar} {pos}/{len} runs  {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// Prints `bar`'s progress to stderr every [`PROGRESS_EVERY`] until it is finished or
/// dropped: `locus: 20 s, 14/84 done; heat: rep 2/10`. The thread holds only a weak
/// reference, so it ends with the bar (or with the process).
fn report_progress(bar: WeakProgressBar) {
    let start = Instant::now();
    let spawned = std::thread::Builder::new()
        .name("locus-progress".to_owned())
        .spawn(move || loop {
            std::thread::sleep(PROGRESS_EVERY);
            let Some(bar) = bar.upgrade() else { return };
            if bar.is_finished() {
                return;
            }
            let of = bar.length().map_or(String::new(), |n| format!("/{n}"));
            let message = bar.message();
            let sep = if message.is_empty() { "" } else { "; " };
            eprintln!(
                "locus: {} s, {}{of} done{sep}{message}",
                start.elapsed().as_secs(),
                bar.position()
            );
        });
    if let Err(e) = spawned {
        tracing::warn!("no progress will be shown: cannot start its thread: {e}");
    }
}
