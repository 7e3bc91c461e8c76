//! Where the bare words of a candidate lie: their JSON paths, as a tree.
//!
//! A bare word is quoted as a string only where the schema expects one, so the consumer checks
//! each word's path (`structured::align`). The paths share their ancestors: the scanner makes
//! a step (a decoded key or an index) the first time a word under it asks and keeps it on the
//! container's frame, and the check walks from one word to the next through the steps they
//! share. Ten thousand words in an array under a 300,000-character key name that key once:
//! when each path was a copy of its own, such a reply of 320 KB took 4 GB and trapped the wasm
//! instance, and checking each path from the root took the key name's length per word again.

use std::rc::Rc;

use super::PathSeg;

/// One step of a path, and the step before it (`None`: the top of the value or element).
#[derive(Debug)]
pub(super) struct Step {
    pub(super) up: Option<usize>,
    pub(super) seg: PathSeg,
}

/// The bare words of one candidate, in text order, and their paths. Most candidates have
/// none, and then this is one null pointer (a reply can hold a million candidates).
#[derive(Debug, Clone, Default)]
pub struct BareWords(Option<Box<Words>>);

#[derive(Debug, Clone)]
struct Words {
    /// The steps of the paths; a step's `up` is always an earlier step. Shared by a sequence and
    /// its elements.
    steps: Rc<[Step]>,
    /// Each word: the element of the sequence it is in (0 outside a sequence, never decreasing)
    /// and the last step of its path from that element (`None`: the element is the word).
    words: Vec<(usize, Option<usize>)>,
    /// The candidate is the array of a sequence's elements: each path starts with its element's
    /// index.
    in_sequence: bool,
}

/// A place on the walk from one word to the next: an element of a sequence, or a step.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Node {
    Element(usize),
    Step(usize),
}

impl BareWords {
    pub(super) fn new(
        steps: Vec<Step>,
        words: Vec<(usize, Option<usize>)>,
        in_sequence: bool,
    ) -> Self {
        BareWords((!words.is_empty()).then(|| {
            Box::new(Words {
                steps: steps.into(),
                words,
                in_sequence,
            })
        }))
    }

    /// The candidate is one bare word: its value is the word.
    pub(super) fn whole() -> Self {
        BareWords::new(Vec::new(), vec![(0, None)], false)
    }

    /// Whether element `element` of the sequence is itself a bare word.
    pub(super) fn is_word(&self, element: usize) -> bool {
        self.0
            .as_ref()
            .is_some_and(|all| all.words.contains(&(element, None)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |all| all.words.len())
    }

    /// How many steps the paths hold in all, each shared one once.
    pub fn steps(&self) -> usize {
        self.0.as_ref().map_or(0, |all| all.steps.len())
    }

    /// The words of element `i` of the sequence, with their paths from that element.
    pub(super) fn element(&self, i: usize) -> BareWords {
        let Some(all) = &self.0 else {
            return BareWords(None);
        };
        let from = all.words.partition_point(|&(e, _)| e < i);
        let to = all.words.partition_point(|&(e, _)| e <= i);
        let words = all.words.get(from..to).unwrap_or_default();
        BareWords((!words.is_empty()).then(|| {
            Box::new(Words {
                steps: Rc::clone(&all.steps),
                words: words.to_vec(),
                in_sequence: false,
            })
        }))
    }

    /// Whether `fits` holds at the place of every word (stopping at the first that fails), the
    /// places reached from `top`, the value's own, by `down`, one path step at a time. A step
    /// several words share is taken once for all of them: the words come in text order, so the
    /// walk keeps the places from the top to the last word and goes back only as far as the
    /// next word's path parts from it.
    pub fn all_fit<T>(
        &self,
        top: T,
        mut down: impl FnMut(&T, &PathSeg) -> T,
        mut fits: impl FnMut(&T) -> bool,
    ) -> bool {
        let Some(all) = &self.0 else {
            return true;
        };
        let mut trail: Vec<(Node, T)> = Vec::new();
        let mut path: Vec<Node> = Vec::new();
        for &(element, last) in &all.words {
            all.nodes(element, last, &mut path);
            let shared = trail
                .iter()
                .zip(&path)
                .take_while(|((node, _), next)| node == *next)
                .count();
            trail.truncate(shared);
            for &node in path.get(shared..).unwrap_or_default() {
                let index;
                let seg = match node {
                    Node::Element(e) => {
                        index = PathSeg::Index(e);
                        &index
                    }
                    Node::Step(i) => match all.steps.get(i) {
                        Some(step) => &step.seg,
                        None => return false,
                    },
                };
                let place = down(trail.last().map_or(&top, |(_, t)| t), seg);
                trail.push((node, place));
            }
            if !fits(trail.last().map_or(&top, |(_, t)| t)) {
                return false;
            }
        }
        true
    }

    /// Every word's path written out in full.
    pub fn paths(&self) -> Vec<Vec<PathSeg>> {
        let Some(all) = &self.0 else {
            return Vec::new();
        };
        let mut path = Vec::new();
        all.words
            .iter()
            .map(|&(element, last)| {
                all.nodes(element, last, &mut path);
                path.iter()
                    .filter_map(|&node| match node {
                        Node::Element(e) => Some(PathSeg::Index(e)),
                        Node::Step(i) => all.steps.get(i).map(|s| s.seg.clone()),
                    })
                    .collect()
            })
            .collect()
    }
}

impl Words {
    /// The nodes from the top to the word whose path ends at step `last`, into `path`.
    fn nodes(&self, element: usize, last: Option<usize>, path: &mut Vec<Node>) {
        path.clear();
        let mut at = last;
        // Each step's `up` is an earlier one, so this ends.
        while let Some(i) = at {
            path.push(Node::Step(i));
            at = self.steps.get(i).and_then(|s| s.up).filter(|&up| up < i);
        }
        if self.in_sequence {
            path.push(Node::Element(element));
        }
        path.reverse();
    }
}
