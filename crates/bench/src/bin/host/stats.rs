//! Medians and percentiles of timed samples.

use std::time::Duration;

/// Timed samples of one measurement.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    durations: Vec<Duration>,
    sorted: bool,
}

impl Samples {
    pub fn with_capacity(capacity: usize) -> Self {
        Samples {
            durations: Vec::with_capacity(capacity),
            sorted: true,
        }
    }

    pub fn push(&mut self, duration: Duration) {
        self.durations.push(duration);
        self.sorted = false;
    }

    /// Adds another run's samples.
    pub fn extend(&mut self, other: Samples) {
        self.durations.extend(other.durations);
        self.sorted = false;
    }

    pub fn len(&self) -> usize {
        self.durations.len()
    }

    pub fn median(&mut self) -> Duration {
        self.percentile(50.0)
    }

    /// The nearest-rank percentile: the smallest sample with at least `p`
    /// percent of the samples at or below it.
    pub fn percentile(&mut self, p: f64) -> Duration {
        if !self.sorted {
            self.durations.sort_unstable();
            self.sorted = true;
        }
        let n = self.durations.len();
        if n == 0 {
            return Duration::ZERO;
        }
        let rank = ((p / 100.0) * n as f64).ceil() as usize;
        self.durations[rank.clamp(1, n) - 1]
    }
}

/// `17.7 µs`, `13.5 ms`, `0.52 s`: three significant figures in a unit that
/// keeps the number readable.
pub fn format_duration(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 1e-3 {
        significant(secs * 1e3, "ms")
    } else {
        significant(secs * 1e6, "µs")
    }
}

fn significant(value: f64, unit: &str) -> String {
    if value >= 100.0 {
        format!("{value:.0} {unit}")
    } else if value >= 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.2} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let mut samples = Samples::with_capacity(100);
        for micros in (1..=100).rev() {
            samples.push(Duration::from_micros(micros));
        }
        assert_eq!(samples.median(), Duration::from_micros(50));
        assert_eq!(samples.percentile(99.0), Duration::from_micros(99));
        assert_eq!(samples.percentile(100.0), Duration::from_micros(100));
    }

    #[test]
    fn durations_read_in_a_fitting_unit() {
        assert_eq!(format_duration(Duration::from_nanos(17_700)), "17.7 µs");
        assert_eq!(format_duration(Duration::from_micros(13_500)), "13.5 ms");
        assert_eq!(format_duration(Duration::from_millis(520)), "520 ms");
        assert_eq!(format_duration(Duration::from_millis(1520)), "1.52 s");
    }
}
