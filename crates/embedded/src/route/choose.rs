//! Choosing the tool: calibrated model scores combined with similarity.

use riverse_route::words::SMALL_TALK;
use std::collections::BTreeSet;

use chrono::NaiveDate;

use riverse_route::{
    Actions, MessageForm, OpposedAction, Opposites, Purpose, Shape, SimilarityIndex, message_form,
    names_record, names_values_only, offered_actions, param_options, reports_trouble,
    shaped_tokens, tool_shapes, tool_texts, values_only_verb,
};
use riverse_tool::ToolManifest;

use crate::error::Result;
use crate::inference::engine::{Engine, State, logprob};
use crate::inference::prompt_cache::PromptCache;
use crate::route::fits::{Takes, Written};
use crate::route::prompt::{CONTENT_FREE, NONE, choice_candidate, choice_prefix, choice_suffix};
use crate::route::reach::{Asked, Reach};
use crate::route::speech::{first_word, naming_verb, same_verb};
use crate::tuning::{
    FIT_CHOICE_BONUS, NAME_CHOICE_BONUS, NAME_VERB_BONUS, OPTION_CHOICE_BONUS, PRUNE_BATCH,
    SHAPE_CHOICE_BONUS, SIMILARITY_WEIGHT,
};

/// The choice prompt of one tool set, prefilled, with everything derived
/// from the manifests alone.
pub(crate) struct ChoicePrefix {
    pub state: State,
    /// Tool names, then [`NONE`].
    pub candidates: Vec<String>,
    /// Token ids of each candidate as scored after the prompt.
    candidate_tokens: Vec<Vec<u32>>,
    /// Each candidate's mean score on content-free messages.
    calibration: Vec<f32>,
    similarity: SimilarityIndex,
    /// Per tool, the shapes its manifest writes (see [`tool_shapes`]).
    shapes: Vec<BTreeSet<Shape>>,
    /// Per tool, the actions its manifest offers (see [`offered_actions`]).
    offered: Vec<Actions>,
    /// Per tool, the subjects its texts name (see [`Purpose`]).
    purposes: Vec<Purpose>,
    /// Per tool, what its purpose reaches beyond its subject (see [`Reach`]).
    reach: Vec<Reach>,
    /// Per tool, the options its parameters list, lowercase, as words.
    options: Vec<Vec<String>>,
    /// Per tool, the kinds of value its parameters take (see [`Takes`]).
    takes: Vec<Takes>,
    /// Per tool, the first word of its name, lowercase ("stop" of
    /// `stop_charging`).
    name_verbs: Vec<String>,
    /// Per tool, the actions it opens with, to tell a request for their
    /// opposite ("turn off roaming" of `enable_roaming`).
    opposites: Vec<Opposites>,
}

/// Why a candidate won or lost, for reports and evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateScore {
    /// A tool name, or `none`.
    pub name: String,
    /// The model's log-probability of the name, minus its content-free mean.
    pub model: f32,
    /// Best character n-gram similarity to the candidate's texts, 0 to 1.
    pub similarity: f32,
    /// The message has a token of a shape the candidate's manifest writes
    /// (a path for a file reader, an expression for a calculator).
    pub shape: bool,
    /// How many kinds of value the message writes that the candidate's
    /// parameters take: a day, a measure in their unit, a record's number.
    /// Always 0 for `none`.
    pub fit: u32,
    /// What the decision compares.
    pub combined: f32,
    /// The candidate could not win, so `model` is only an upper bound (its
    /// first token's log-probability) and was not computed in full.
    pub pruned: bool,
    /// The candidate offers the action the message asks for, or the message
    /// names none (see [`riverse_route::requested_actions`]); one that does
    /// not is never chosen. Always true for `none`.
    pub serves: bool,
    /// The message names a subject the candidate's texts name, has a
    /// token of a shape they write (see [`Purpose`]), or writes a code the
    /// way an identifier parameter's example is ("RQ-19977" for "e.g.
    /// RQ-12345"); a tool that covers nothing the message asks is never
    /// chosen. Always true for `none`.
    pub covered: bool,
    /// The candidate changes things (creates, sends, removes…) and the
    /// message names none of its actions: when the message is a question or
    /// a statement, it must win by [`crate::tuning::CHANGE_MARGIN`] more. Always false for
    /// `none`.
    pub unasked_change: bool,
    /// The call the candidate got lacks a parameter its tool requires (see
    /// [`riverse_route::required_params`]): it is out of the running, and
    /// the next best is weighed when what it lacks is what it works on
    /// ([`riverse_route::works_on`]). Always false for `none`.
    pub incomplete: bool,
    /// The candidate's purpose reaches what the message asks of its
    /// subject: a history, a trend or a total over a period only a tool
    /// that reads the past answers ("How has the rate moved over the past
    /// year?" is not for a converter at today's rate). One that does not
    /// is never chosen. Always true for `none`.
    pub reaches: bool,
}

impl ChoicePrefix {
    /// Prefills the choice prompt of `tools` and calibrates it, or reads
    /// both back from `disk`.
    pub fn build(
        engine: &Engine,
        tools: &[ToolManifest],
        disk: Option<&PromptCache>,
    ) -> Result<Self> {
        let prompt = choice_prefix(tools);
        let mut candidates: Vec<String> = tools.iter().map(|tool| tool.name.clone()).collect();
        candidates.push(NONE.to_owned());
        let candidate_tokens = candidate_tokens(engine, &candidates)?;
        let mut texts: Vec<Vec<String>> = tools.iter().map(tool_texts).collect();
        texts.push(
            SMALL_TALK
                .entries()
                .iter()
                .map(|text| (*text).to_owned())
                .collect(),
        );
        let similarity = SimilarityIndex::new(&texts);
        let shapes = tools.iter().map(tool_shapes).collect();
        let offered: Vec<Actions> = tools.iter().map(offered_actions).collect();
        let purposes: Vec<Purpose> = tools.iter().map(Purpose::of).collect();
        let reach = tools
            .iter()
            .zip(&offered)
            .map(|(tool, offered)| Reach::of(tool, *offered))
            .collect();
        let options: Vec<Vec<String>> = tools.iter().map(listed_options).collect();
        let takes: Vec<Takes> = tools.iter().map(Takes::of).collect();
        let name_verbs: Vec<String> = tools
            .iter()
            .map(|tool| first_word(&tool.name).unwrap_or_default())
            .collect();
        let opposites: Vec<Opposites> = tools.iter().map(Opposites::of).collect();
        // Everything the saved calibration depends on.
        let key = format!("choice\n{prompt}\n{candidate_tokens:?}\n{CONTENT_FREE:?}");
        let layers = engine.weights.config.layers;
        if let Some((state, calibration)) = disk.and_then(|disk| disk.load(&key, layers))
            && calibration.len() == candidates.len()
        {
            return Ok(ChoicePrefix {
                state,
                candidates,
                candidate_tokens,
                calibration,
                similarity,
                shapes,
                offered,
                purposes,
                reach,
                options,
                takes,
                name_verbs,
                opposites,
            });
        }
        let mut prefix = ChoicePrefix {
            state: engine.prefill(&prompt)?,
            candidates,
            candidate_tokens,
            calibration: Vec::new(),
            similarity,
            shapes,
            offered,
            purposes,
            reach,
            options,
            takes,
            name_verbs,
            opposites,
        };
        let mut sums = vec![0.0; prefix.candidates.len()];
        for message in CONTENT_FREE {
            for (sum, score) in sums.iter_mut().zip(prefix.raw_scores(engine, message)?) {
                *sum += score;
            }
        }
        prefix.calibration = sums
            .into_iter()
            .map(|sum| sum / CONTENT_FREE.len() as f32)
            .collect();
        if let Some(disk) = disk {
            disk.save(&key, &prefix.state, &prefix.calibration);
        }
        Ok(prefix)
    }

    /// Log-probability of each candidate name as the reply to `message`.
    fn raw_scores(&self, engine: &Engine, message: &str) -> Result<Vec<f32>> {
        let state = engine.extend(&self.state, &choice_suffix(message))?;
        engine.score_many(&state, &self.candidate_tokens)
    }

    /// Every candidate's scores for `message`, in candidate order, and the
    /// tokens of the prompt they follow (the prefix and the message's part).
    /// A tool that does not offer `requested` (see [`Actions::serve`]) or
    /// what `asked`'s verb implies, or whose purpose does not reach what
    /// `asked` asks (see [`Reach`]), is out of the running: it is left at
    /// its bound, and never chosen.
    ///
    /// Only candidates that can still win are scored in full: a name's
    /// log-probability is at most that of its first token, which the
    /// message's prefill already gives, so tools whose bound falls below the
    /// best full score are left at their bound (and marked `pruned`). Most
    /// messages need the full score of two or three names only.
    pub fn score(
        &self,
        engine: &Engine,
        message: &str,
        requested: Actions,
        asked: &Asked,
        today: NaiveDate,
    ) -> Result<(Vec<CandidateScore>, usize)> {
        let state = engine.extend(&self.state, &choice_suffix(message))?;
        let similarity = self.similarity.scores(message);
        let written = Written::of(message, today);
        let fit: Vec<u32> = (0..self.candidates.len())
            .map(|index| {
                self.takes
                    .get(index)
                    .map_or(0, |takes| takes.fits(&written))
            })
            .collect();
        let Judged {
            shape,
            named,
            named_verb,
            serves,
            covered,
            unasked_change,
            reaches,
        } = self.judge(message, requested, asked);
        let words: Vec<String> = message
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_owned)
            .collect();
        let evidence: Vec<f32> = similarity
            .iter()
            .zip(&shape)
            .zip(&named)
            .zip(&fit)
            .zip(&named_verb)
            .enumerate()
            .map(
                |(index, ((((&similarity, &shape), &named), &fit), &named_verb))| {
                    let optioned = self
                        .options
                        .get(index)
                        .is_some_and(|options| options.iter().any(|option| words.contains(option)));
                    SIMILARITY_WEIGHT * similarity
                        + if shape { SHAPE_CHOICE_BONUS } else { 0.0 }
                        + if named { NAME_CHOICE_BONUS } else { 0.0 }
                        + if named_verb { NAME_VERB_BONUS } else { 0.0 }
                        + if optioned { OPTION_CHOICE_BONUS } else { 0.0 }
                        + FIT_CHOICE_BONUS * fit as f32
                },
            )
            .collect();
        let bonus: Vec<f32> = evidence
            .iter()
            .zip(&self.calibration)
            .enumerate()
            .map(|(index, (evidence, calibration))| {
                match serves[index] && covered[index] && reaches[index] {
                    true => evidence - calibration,
                    false => f32::NEG_INFINITY,
                }
            })
            .collect();
        let bounds: Vec<Bound> = self
            .candidate_tokens
            .iter()
            .map(|tokens| Bound {
                score: logprob(&state.next, tokens.first().copied().unwrap_or(0)),
                exact: tokens.len() <= 1,
            })
            .collect();
        let scored = score_until_decided(bounds, &bonus, |wanted| {
            let sequences: Vec<Vec<u32>> = wanted
                .iter()
                .map(|&index| self.candidate_tokens[index].clone())
                .collect();
            engine.score_many(&state, &sequences)
        })?;
        let scores = self
            .candidates
            .iter()
            .zip(scored)
            .enumerate()
            .map(|(index, (name, bound))| {
                let model = bound.score - self.calibration[index];
                CandidateScore {
                    name: name.clone(),
                    model,
                    similarity: similarity[index],
                    shape: shape[index],
                    fit: fit[index],
                    combined: model + evidence[index],
                    pruned: !bound.exact,
                    serves: serves[index],
                    covered: covered[index],
                    unasked_change: unasked_change[index],
                    incomplete: false,
                    reaches: reaches[index],
                }
            })
            .collect();
        Ok((scores, state.tokens()))
    }

    /// What the text rules say of each candidate for `message`.
    fn judge(&self, message: &str, requested: Actions, asked: &Asked) -> Judged {
        let each = |test: &dyn Fn(usize) -> bool| (0..self.candidates.len()).map(test).collect();
        let shaped: BTreeSet<Shape> = shaped_tokens(message)
            .into_iter()
            .map(|token| token.shape)
            .collect();
        let shape: Vec<bool> = each(&|index| {
            self.shapes
                .get(index)
                .is_some_and(|shapes| !shapes.is_disjoint(&shaped))
        });
        // A remark that names a tool asks nothing of it ("The weather has
        // been lovely lately"): the name counts for other forms only. A
        // report of something broken asks for its repair.
        let remark = message_form(message) == MessageForm::Statement && !reports_trouble(message);
        let named = each(&|index| {
            !remark
                && self
                    .purposes
                    .get(index)
                    .is_some_and(|purpose| purpose.named_by(message))
        });
        let opening = naming_verb(message);
        let named_verb = each(&|index| {
            opening.as_deref().is_some_and(|verb| {
                self.name_verbs
                    .get(index)
                    .is_some_and(|word| same_verb(word, verb))
            })
        });
        // A verb the action classes do not list that a tool's name or
        // description opens with ("Lend", "waive"), or that its name holds
        // ("claim" of `submit_expense_claim`), is that tool's.
        let verb_owners: Vec<bool> = each(&|index| {
            asked.verb.as_deref().is_some_and(|verb| {
                self.reach
                    .get(index)
                    .is_some_and(|reach| reach.owns_verb(verb))
            })
        });
        let verb_owned = verb_owners.contains(&true);
        let opposed_action = OpposedAction::asked_in(message);
        let serves = each(&|index| {
            self.offered
                .get(index)
                .is_none_or(|offered| offered.serve(requested) && asked.served_by(*offered))
                && (!verb_owned || verb_owners[index])
                && !opposed_action.as_ref().is_some_and(|asked| {
                    self.opposites
                        .get(index)
                        .is_some_and(|opposites| opposites.oppose(asked))
                })
        });
        let record = names_record(message);
        // "switch me to Kenya Kiambu" names no subject, only its verb and a
        // value: the tool that opens with that verb covers it.
        let values_only_verb = values_only_verb(message);
        // "where is S-004518?" asks after a record by its code alone: a
        // tool that reads such records covers it.
        let record_question =
            record && message_form(message) == MessageForm::Question && names_values_only(message);
        // A code written the way an identifier's example is ("RQ-19977"
        // for "e.g. RQ-12345") names one of the tool's records: it covers
        // the message, though it gains nothing in the choice (a question
        // about the record that the tool cannot answer names it too).
        let covered = each(&|index| {
            (shape[index]
                || self
                    .takes
                    .get(index)
                    .is_some_and(|takes| takes.writes_own_code(message))
                || record && self.acts_on_record(index, asked)
                || record_question && self.reads_record(index)
                || values_only_verb.as_deref().is_some_and(|verb| {
                    self.reach
                        .get(index)
                        .is_some_and(|reach| reach.opens_with(verb))
                })
                || self
                    .purposes
                    .get(index)
                    .is_none_or(|purpose| purpose.covers(message)))
                && self.covers_object(index, asked)
        });
        let unasked_change = each(&|index| {
            self.offered
                .get(index)
                .is_some_and(|offered| offered.changes() && !offered.meets(requested))
        });
        // The day a request names is its own verb's doing when a tool
        // that changes things owns the verb ("claim $14.50 parking for
        // yesterday"), no question about the past.
        let owned = Asked {
            past: false,
            ..asked.clone()
        };
        let reaches = each(&|index| {
            let changes = self
                .offered
                .get(index)
                .is_some_and(|offered| offered.changes());
            let asked = match verb_owners[index] && changes {
                true => &owned,
                false => asked,
            };
            self.reach
                .get(index)
                .is_none_or(|reach| reach.reaches(asked))
        });
        Judged {
            shape,
            named,
            named_verb,
            serves,
            covered,
            unasked_change,
            reaches,
        }
    }

    /// Whether tool `index` takes a record by its identifier and its name
    /// or description opens with the verb the request opens with, or one
    /// of its action class: "close 4471", "add a note to INC-20931" or
    /// "trash IMG_1200.jpg" (for `delete_photo`) names the tool's own
    /// action and the record it acts on, in whatever words its author
    /// described the record ("ticket", "comment"). For a message that
    /// writes an identifier (see [`names_record`]).
    fn acts_on_record(&self, index: usize, asked: &Asked) -> bool {
        let takes = self.takes.get(index).is_some_and(Takes::takes_record);
        let own_verb = asked.action_verb.as_deref().is_some_and(|verb| {
            self.reach
                .get(index)
                .is_some_and(|reach| reach.opens_with_kindred(verb))
        });
        takes && own_verb
    }

    /// Whether tool `index` takes a record by its identifier and changes
    /// nothing: one that looks a record up.
    fn reads_record(&self, index: usize) -> bool {
        let takes = self.takes.get(index).is_some_and(Takes::takes_record);
        takes
            && self
                .offered
                .get(index)
                .is_some_and(|offered| !offered.changes())
    }

    /// Whether tool `index` names what a requested change acts on ("the
    /// hold" of "Cancel the hold on Piranesi"), or takes items it may act
    /// on; true when the request names no such thing or the tool changes
    /// nothing (see [`crate::route::speech::changed_object`]).
    ///
    /// Likewise a tool names what a "what's the …" question asks for
    /// ("the battery level" of a feeder is not its last meal); one that
    /// computes or answers questions is left to the scores.
    fn covers_object(&self, index: usize, asked: &Asked) -> bool {
        let (Some(offered), Some(purpose), Some(reach)) = (
            self.offered.get(index),
            self.purposes.get(index),
            self.reach.get(index),
        ) else {
            return true;
        };
        let object = !offered.changes()
            || reach.takes_items
            || asked
                .object
                .iter()
                .all(|object| purpose.covers_phrase(object));
        let judged = !reach.computes && !reach.advises;
        let focus = asked
            .focus
            .as_deref()
            .is_none_or(|focus| !judged || purpose.covers_phrase(focus));
        object && focus
    }

    /// The tokens of candidate `index` as scored: the reply the choice
    /// prompt gets when that candidate wins.
    pub fn reply_tokens(&self, index: usize) -> usize {
        self.candidate_tokens.get(index).map_or(0, Vec::len)
    }
}

/// The options `tool`'s parameters list ("one of: checking, savings"),
/// lowercase, those of one word of three letters or more (a day, a
/// category, a format): what a message names when it names a value the
/// tool takes.
fn listed_options(tool: &ToolManifest) -> Vec<String> {
    tool.parameters
        .keys()
        .flat_map(|name| param_options(tool, name))
        .map(|option| option.to_lowercase())
        .filter(|option| option.len() >= 3 && option.chars().all(char::is_alphanumeric))
        .collect()
}

/// A candidate's model score: exact, or an upper bound (its first token's
/// log-probability) while it has not been scored in full.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    score: f32,
    exact: bool,
}

/// Scores candidates in full, best bound first, until no candidate left at
/// its bound could beat the best exact tool; the last candidate (`none`) is
/// always scored in full. `bonus[i]` is added to candidate `i`'s model score
/// to rank it; `score_full` scores the candidates at the given indices.
///
/// A full score never exceeds its bound, so the tool that ranks first is the
/// one that full scoring of every candidate would rank first.
fn score_until_decided<E>(
    mut bounds: Vec<Bound>,
    bonus: &[f32],
    mut score_full: impl FnMut(&[usize]) -> Result<Vec<f32>, E>,
) -> Result<Vec<Bound>, E> {
    let count = bounds.len();
    let none = count - 1;
    let rank = |bounds: &[Bound], index: usize| bounds[index].score + bonus[index];
    let mut wanted: Vec<usize> = vec![none];
    loop {
        let mut open: Vec<usize> = (0..count).filter(|&index| !bounds[index].exact).collect();
        open.sort_by(|&a, &b| rank(&bounds, b).total_cmp(&rank(&bounds, a)));
        let best_exact = (0..count)
            .filter(|&index| bounds[index].exact && index != none)
            .map(|index| rank(&bounds, index))
            .fold(f32::NEG_INFINITY, f32::max);
        wanted.extend(
            open.iter()
                .copied()
                .filter(|&index| rank(&bounds, index) > best_exact)
                .take(PRUNE_BATCH),
        );
        wanted.retain(|&index| !bounds[index].exact);
        if wanted.is_empty() {
            return Ok(bounds);
        }
        for (&index, score) in wanted.iter().zip(score_full(&wanted)?) {
            bounds[index] = Bound { score, exact: true };
        }
        wanted.clear();
    }
}

/// The tokens each candidate is scored by: its name, and the reply's closing
/// `"}` only where the name alone is a prefix of another name (`web` and
/// `web_search`). Leaving the closing out of unambiguous names spares a
/// forward pass per single-token name without changing which name wins.
fn candidate_tokens(engine: &Engine, candidates: &[String]) -> Result<Vec<Vec<u32>>> {
    let plain: Vec<Vec<u32>> = candidates
        .iter()
        .map(|name| engine.tokenizer.encode(name))
        .collect::<Result<_>>()?;
    candidates
        .iter()
        .zip(&plain)
        .enumerate()
        .map(|(index, (name, tokens))| {
            let full = engine.tokenizer.encode(&choice_candidate(name))?;
            let ambiguous = plain
                .iter()
                .enumerate()
                .any(|(other, theirs)| other != index && theirs.starts_with(tokens));
            Ok(if ambiguous || !full.starts_with(tokens) {
                full
            } else {
                tokens.clone()
            })
        })
        .collect()
}

/// The text rules' verdicts on each candidate, by index.
struct Judged {
    /// A token of a shape the tool writes (a path, a URL) is in the message.
    shape: Vec<bool>,
    /// The message names a word of the tool's name.
    named: Vec<bool>,
    /// The request opens with the verb the tool's name opens with.
    named_verb: Vec<bool>,
    /// The tool offers the action the message asks for.
    serves: Vec<bool>,
    /// The tool's purpose covers the message's subject.
    covered: Vec<bool>,
    /// The tool changes things and the message asks for no change it makes.
    unasked_change: Vec<bool>,
    /// The tool's purpose reaches what the message asks of its subject.
    reaches: Vec<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (an LCG), for many varied cases.
    struct Numbers(u64);

    impl Numbers {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    #[test]
    fn pruning_picks_the_winner_of_full_scoring() {
        let mut numbers = Numbers(7);
        for case in 0..500 {
            let count = 2 + case % 12;
            let full: Vec<f32> = (0..count).map(|_| -8.0 * numbers.next()).collect();
            // A bound is the first token's log-probability: at least the full
            // score, and equal to it for a single-token name.
            let bounds: Vec<Bound> = full
                .iter()
                .map(|&score| {
                    let single_token = numbers.next() < 0.3;
                    Bound {
                        score: if single_token {
                            score
                        } else {
                            score + 4.0 * numbers.next()
                        },
                        exact: single_token,
                    }
                })
                .collect();
            let bonus: Vec<f32> = (0..count).map(|_| 12.0 * numbers.next() - 3.0).collect();
            let mut calls = 0;
            let scored = score_until_decided(bounds, &bonus, |wanted| {
                calls += 1;
                assert!(wanted.len() <= PRUNE_BATCH + 1, "{wanted:?}");
                Ok::<_, ()>(wanted.iter().map(|&index| full[index]).collect())
            })
            .unwrap();
            let winner = |model: &dyn Fn(usize) -> f32| {
                (0..count - 1)
                    .max_by(|&a, &b| (model(a) + bonus[a]).total_cmp(&(model(b) + bonus[b])))
                    .unwrap()
            };
            let pruned_winner = winner(&|index| scored[index].score);
            assert_eq!(pruned_winner, winner(&|index| full[index]), "case {case}");
            assert!(
                scored[pruned_winner].exact,
                "case {case}: the winner is exact"
            );
            assert!(scored[count - 1].exact, "case {case}: none is always exact");
            assert_eq!(
                scored[count - 1].score,
                full[count - 1],
                "case {case}: none's score is its full score"
            );
            assert!(calls <= count, "case {case}");
        }
    }
}
