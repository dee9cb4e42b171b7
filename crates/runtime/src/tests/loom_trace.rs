//! A trace log's publication: its owner appends while another thread reads; the reader
//! sees a prefix of what was appended, in order, every event whole, across a segment
//! boundary (two events per segment under loom), and events past the cap are counted,
//! never stored.

use crate::trace::{Event, Log, SEGMENT};
use loom::sync::Arc;
use loom::thread;

fn event(i: u64) -> Event {
    Event::Idle {
        start: i,
        end: i + 1,
        sleep: false,
    }
}

#[test]
fn a_log_reader_sees_a_whole_ordered_prefix_across_segments() {
    assert_eq!(SEGMENT, 2);
    loom::model(|| {
        let log = Arc::new(Log::new(3));
        let writer = {
            let log = log.clone();
            thread::spawn(move || {
                for i in 0..4 {
                    // SAFETY: this thread is the log's only writer.
                    unsafe { log.push(event(i)) };
                }
            })
        };
        let reader = {
            let log = log.clone();
            thread::spawn(move || {
                let mut seen = Vec::new();
                log.read_into(&mut seen);
                seen
            })
        };
        let seen = reader.join().unwrap();
        assert!(seen.len() <= 3);
        for (i, e) in seen.iter().enumerate() {
            assert_eq!(*e, event(i as u64));
        }
        writer.join().unwrap();
        let mut all = Vec::new();
        assert_eq!(log.read_into(&mut all), 1, "the fourth event is dropped");
        assert_eq!(all, (0..3).map(event).collect::<Vec<_>>());
    });
}
