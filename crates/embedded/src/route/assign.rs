//! Choosing the string parameters' values together: each parameter gets one
//! candidate span, no span serves two parameters, and the assignment with
//! the best total score wins. Filled one after another, the first parameter
//! takes whatever fits it best, even what fits the next one better ("call
//! mom at 6pm" as the text leaves the time nothing).

use std::ops::Range;

/// The best assignment of `spans` to parameters: `scores[p][c]` is how well
/// candidate `c` (whose message bytes are `spans[c]`) fits parameter `p`,
/// `nulls[p]` how well `null` does (`None` in the result);
/// `order_penalty` is subtracted for each pair of parameters whose values
/// lie in the opposite order of their declaration.
pub(crate) fn best_assignment(
    scores: &[Vec<f32>],
    nulls: &[f32],
    spans: &[Range<usize>],
    order_penalty: f32,
) -> Vec<Option<usize>> {
    let mut search = Search {
        scores,
        nulls,
        spans,
        order_penalty,
        best_rest: best_rest(scores, nulls),
        chosen: Vec::new(),
        best: None,
    };
    search.run(0.0);
    search
        .best
        .map(|(_, chosen)| chosen)
        .unwrap_or_else(|| vec![None; scores.len()])
}

/// `best_rest[p]`: the most parameters `p..` could add, an upper bound that
/// lets the search skip branches that cannot win.
fn best_rest(scores: &[Vec<f32>], nulls: &[f32]) -> Vec<f32> {
    let mut rest = vec![0.0; scores.len() + 1];
    for p in (0..scores.len()).rev() {
        let best = scores[p].iter().copied().fold(nulls[p], f32::max);
        rest[p] = rest[p + 1] + best;
    }
    rest
}

struct Search<'a> {
    scores: &'a [Vec<f32>],
    nulls: &'a [f32],
    spans: &'a [Range<usize>],
    order_penalty: f32,
    best_rest: Vec<f32>,
    chosen: Vec<Option<usize>>,
    best: Option<(f32, Vec<Option<usize>>)>,
}

impl Search<'_> {
    fn run(&mut self, total: f32) {
        let param = self.chosen.len();
        if self
            .best
            .as_ref()
            .is_some_and(|(best, _)| total + self.best_rest[param] <= *best)
        {
            return;
        }
        if param == self.scores.len() {
            self.best = Some((total, self.chosen.clone()));
            return;
        }
        let mut order: Vec<usize> = (0..self.scores[param].len()).collect();
        order.sort_by(|&a, &b| self.scores[param][b].total_cmp(&self.scores[param][a]));
        for candidate in order {
            if self.clashes(candidate) {
                continue;
            }
            let gain = self.scores[param][candidate] - self.order_cost(candidate);
            self.chosen.push(Some(candidate));
            self.run(total + gain);
            self.chosen.pop();
        }
        self.chosen.push(None);
        self.run(total + self.nulls[param]);
        self.chosen.pop();
    }

    fn clashes(&self, candidate: usize) -> bool {
        let span = &self.spans[candidate];
        self.chosen
            .iter()
            .flatten()
            .any(|&other| overlaps(span, &self.spans[other]))
    }

    /// The order penalty of placing `candidate` after the values chosen
    /// for earlier parameters.
    fn order_cost(&self, candidate: usize) -> f32 {
        let start = self.spans[candidate].start;
        let swapped = self
            .chosen
            .iter()
            .flatten()
            .filter(|&&other| self.spans[other].start > start)
            .count();
        swapped as f32 * self.order_penalty
    }
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_parameter_gets_the_value_that_fits_it_best_overall() {
        // "call mom at 6pm": "call mom at 6pm" whole fits the text best
        // alone, but leaves the time nothing.
        let spans = [0..15, 0..8, 12..15];
        let scores = vec![vec![-2.0, -3.0, -9.0], vec![-20.0, -12.0, -1.0]];
        assert_eq!(
            best_assignment(&scores, &[-50.0; 2], &spans, 0.0),
            [Some(1), Some(2)]
        );
    }

    #[test]
    fn null_wins_over_values_that_fit_worse() {
        let spans = [0..4, 5..9];
        let scores = vec![vec![-3.0, -8.0], vec![-9.0, -7.0]];
        assert_eq!(
            best_assignment(&scores, &[-5.0, -5.0], &spans, 0.0),
            [Some(0), None]
        );
        assert_eq!(best_assignment(&[vec![]], &[-5.0], &[], 0.0), [None]);
    }

    #[test]
    fn no_span_serves_two_parameters() {
        let spans = [0..4, 5..9];
        let scores = vec![vec![-1.0, -5.0], vec![-1.0, -6.0]];
        let nulls = [-50.0; 2];
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 0.0),
            [Some(1), Some(0)]
        );
        let overlapping = [0..4, 2..6];
        let chosen = best_assignment(&scores, &nulls, &overlapping, 0.0);
        assert!(chosen.contains(&None), "{chosen:?}");
        let one = vec![vec![-1.0], vec![-1.0]];
        assert_eq!(
            best_assignment(&one, &nulls, std::slice::from_ref(&(0..4)), 0.0)[1],
            None,
            "one span"
        );
    }

    #[test]
    fn values_in_declaration_order_win_a_close_call() {
        let spans = [0..2, 5..7];
        let scores = vec![vec![-1.0, -1.5], vec![-1.5, -1.0]];
        let nulls = [-50.0; 2];
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 3.0),
            [Some(0), Some(1)]
        );
        let scores = vec![vec![-1.5, -1.0], vec![-1.0, -1.5]];
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 3.0),
            [Some(0), Some(1)]
        );
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 0.0),
            [Some(1), Some(0)]
        );
    }

    #[test]
    fn the_search_agrees_with_trying_everything() {
        // Three parameters over five overlapping spans, many score tables.
        let spans = [0..3, 2..5, 5..8, 8..9, 1..9];
        let mut seed = 11u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            -((seed >> 40) as f32 / (1u64 << 20) as f32)
        };
        for _ in 0..200 {
            let scores: Vec<Vec<f32>> = (0..3).map(|_| (0..5).map(|_| next()).collect()).collect();
            let found = best_assignment(&scores, &[-1.0e4; 3], &spans, 1.5);
            let total = |chosen: &[Option<usize>]| {
                let mut sum = 0.0;
                for (p, c) in chosen.iter().enumerate() {
                    let Some(c) = c else { return f32::NEG_INFINITY };
                    sum += scores[p][*c];
                    for (q, d) in chosen[..p].iter().enumerate() {
                        let d = d.unwrap();
                        if overlaps(&spans[*c], &spans[d]) {
                            return f32::NEG_INFINITY;
                        }
                        if spans[d].start > spans[*c].start {
                            sum -= 1.5;
                        }
                        let _ = q;
                    }
                }
                sum
            };
            let mut best = f32::NEG_INFINITY;
            for a in 0..5 {
                for b in 0..5 {
                    for c in 0..5 {
                        best = best.max(total(&[Some(a), Some(b), Some(c)]));
                    }
                }
            }
            assert!((total(&found) - best).abs() < 1e-4, "{found:?}");
        }
    }
}
