//! Search: ranks tools for a free-text request ("add a comment to an issue") with BM25F over
//! what the document says about each operation, weighted by field, plus agreement between the
//! request's verb and the HTTP method.
//!
//! Words are split whatever their style (`createIssueComment`, `issue_number`, `sub-issues`),
//! lower-cased and stemmed (Snowball English), so `comments`, `commenting` and `comment` meet.
//! Fields, strongest first: the tool name and operationId, the title, the last literal path
//! segment (the resource the operation acts on), the tags, the other path segments, the
//! description, and the names of parameters and body properties. The first sentence of the
//! request counts more than the rest (descriptions lead with what the tool does). The ranking is
//! deterministic: equal scores keep document order.

use super::Tool;
use super::vocab::{self, Effect};
use crate::model::Method;
use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;

/// One ranked tool: its index in the list given to [`Index::new`] and its score (higher is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub index: usize,
    pub score: f64,
}

/// A score rounded to 4 decimals, as shown to people and clients.
pub fn rounded(score: f64) -> f64 {
    (score * 10_000.0).round() / 10_000.0
}

/// The fields of an operation, in the order of [`WEIGHTS`].
const FIELDS: usize = 7;
const NAME: usize = 0;
const TITLE: usize = 1;
const RESOURCE: usize = 2;
const TAGS: usize = 3;
const PATH: usize = 4;
const DESCRIPTION: usize = 5;
const PARAMS: usize = 6;

/// How much a match in each field counts.
const WEIGHTS: [f64; FIELDS] = [3.0, 2.5, 2.5, 1.5, 1.2, 1.0, 0.6];
/// BM25 length normalisation per field: long descriptions should not win by length alone.
const B: [f64; FIELDS] = [0.5, 0.5, 0.3, 0.3, 0.3, 0.75, 0.5];
/// BM25 term-frequency saturation (higher than the usual 1.2: the field weights add up).
const K1: f64 = 2.0;
/// How much more a tool scores when the request names every word of its name and title
/// (weighted by how rare each word is): `delete_issue` over `delete_issue_type_property` for
/// "delete an issue".
const COVERAGE: f64 = 0.5;
/// How much more a tool scores when the request names its resource (the last literal path
/// segment): `/issues/{id}/comments` for "comments on an issue".
const RESOURCE_NAMED: f64 = 0.3;

/// A search index over a list of tools.
pub struct Index {
    /// Each stemmed term's id.
    vocabulary: FxHashMap<String, u32>,
    /// For each term id: the tools holding it (in order), with the term's count in each field.
    postings: Vec<Vec<(u32, [u16; FIELDS])>>,
    /// Each tool's field lengths, in terms.
    lengths: Vec<[u32; FIELDS]>,
    /// Average field lengths over all tools.
    average: [f64; FIELDS],
    /// Each tool's method and whether its path ends in a parameter (one item, not a collection).
    shapes: Vec<(Method, bool)>,
    /// Each tool's distinct name and title terms, and the terms of its resource.
    heads: Vec<(Vec<u32>, Vec<u32>)>,
    stemmer: Stemmer,
}

impl Index {
    /// Index `tools` (already filtered); hits refer to their positions.
    pub fn new(tools: &[Tool]) -> Index {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut vocabulary: FxHashMap<String, u32> = FxHashMap::default();
        // Each word's term (none for a stop word), stemmed once however often it appears.
        let mut memo: FxHashMap<String, Option<u32>> = FxHashMap::default();
        let mut postings: Vec<Vec<(u32, [u16; FIELDS])>> = Vec::new();
        let mut lengths = Vec::with_capacity(tools.len());
        let mut shapes = Vec::with_capacity(tools.len());
        let mut heads = Vec::with_capacity(tools.len());
        let mut counts: FxHashMap<u32, [u16; FIELDS]> = FxHashMap::default();
        for (i, tool) in tools.iter().enumerate() {
            counts.clear();
            let mut length = [0u32; FIELDS];
            let (mut head, mut resource) = (Vec::new(), Vec::new());
            for (field, text) in field_texts(tool) {
                for word in super::vocab::words(&text) {
                    let term = match memo.get(&word) {
                        Some(t) => *t,
                        None => {
                            let t = term(&stemmer, &word).map(|stem| {
                                let next = vocabulary.len() as u32;
                                *vocabulary.entry(stem).or_insert(next)
                            });
                            memo.insert(word, t);
                            t
                        }
                    };
                    let Some(term) = term else { continue };
                    if (field == NAME || field == TITLE) && !head.contains(&term) {
                        head.push(term);
                    }
                    if field == RESOURCE && !resource.contains(&term) {
                        resource.push(term);
                    }
                    let c = counts.entry(term).or_default();
                    c[field] = c[field].saturating_add(1);
                    length[field] += 1;
                }
            }
            postings.resize_with(vocabulary.len(), Vec::new);
            // Each list gets tools in document order, whatever order the map gives its terms.
            for (&term, &c) in &counts {
                postings[term as usize].push((i as u32, c));
            }
            lengths.push(length);
            heads.push((head, resource));
            shapes.push((tool.call.method, ends_in_parameter(&tool.call.path)));
        }
        let mut average = [0.0; FIELDS];
        for l in &lengths {
            for f in 0..FIELDS {
                average[f] += f64::from(l[f]);
            }
        }
        for a in &mut average {
            *a = (*a / tools.len().max(1) as f64).max(1.0);
        }
        Index {
            vocabulary,
            postings,
            lengths,
            average,
            shapes,
            heads,
            stemmer,
        }
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The best `limit` tools for `query`, best first; equal scores in document order. Tools
    /// that share no word with the query are left out, so a query of no known word finds nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let n = self.lengths.len() as f64;
        let mut scores: Vec<f64> = vec![0.0; self.lengths.len()];
        let mut matched = vec![false; self.lengths.len()];
        let query_terms = self.query_terms(query);
        let idf = |term: u32| {
            let df = self.postings[term as usize].len() as f64;
            ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
        };
        for &(term, weight) in &query_terms {
            let list = &self.postings[term as usize];
            let idf = idf(term);
            for (doc, counts) in list {
                let doc = *doc as usize;
                let mut tf = 0.0;
                for f in 0..FIELDS {
                    if counts[f] == 0 {
                        continue;
                    }
                    let norm =
                        1.0 - B[f] + B[f] * f64::from(self.lengths[doc][f]) / self.average[f];
                    tf += WEIGHTS[f] * f64::from(counts[f]) / norm;
                }
                scores[doc] += weight * idf * tf / (K1 + tf);
                matched[doc] = true;
            }
        }
        let intent = intent(query);
        let in_query = |t: &u32| query_terms.iter().any(|(q, _)| q == t);
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .enumerate()
            .filter(|(i, _)| matched[*i])
            .map(|(index, score)| {
                let (head, resource) = &self.heads[index];
                let total: f64 = head.iter().map(|&t| idf(t)).sum();
                let covered: f64 = head.iter().filter(|t| in_query(t)).map(|&t| idf(t)).sum();
                let coverage = if total > 0.0 { covered / total } else { 0.0 };
                let resource_hit = !resource.is_empty() && resource.iter().all(in_query);
                let score = score
                    * (1.0 + COVERAGE * coverage)
                    * if resource_hit {
                        1.0 + RESOURCE_NAMED
                    } else {
                        1.0
                    }
                    * agreement(intent, self.shapes[index]);
                Hit { index, score }
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        hits.truncate(limit);
        hits
    }

    /// The query's terms that some tool holds, with their weights, in first-seen order: words of
    /// the first sentence count fully, later ones half; repeats add with diminishing returns.
    fn query_terms(&self, query: &str) -> Vec<(u32, f64)> {
        let mut out: Vec<(u32, f64)> = Vec::new();
        for (i, sentence) in sentences(query).enumerate() {
            let w = if i == 0 { 1.0 } else { 0.5 };
            let words = super::vocab::words(sentence);
            let known = words
                .iter()
                .filter_map(|w| term(&self.stemmer, w))
                .filter_map(|t| self.vocabulary.get(&t).copied());
            for term in known {
                match out.iter_mut().find(|(t, _)| *t == term) {
                    Some((_, total)) => *total += w,
                    None => out.push((term, w)),
                }
            }
        }
        for (_, w) in &mut out {
            // 1 -> 1, 2 -> 1.41, 4 -> 2: a word the request repeats matters more, but not linearly.
            *w = w.sqrt();
        }
        out
    }
}

/// The text of each field of `tool`.
fn field_texts(tool: &Tool) -> Vec<(usize, String)> {
    let mut out = vec![(NAME, tool.name.clone())];
    if let Some(id) = &tool.origin.operation_id
        && vocab::words(id) != vocab::words(&tool.name)
    {
        out.push((NAME, id.clone()));
    }
    out.push((TITLE, tool.title.clone()));
    let literal: Vec<&str> = tool
        .call
        .path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .collect();
    if let Some((last, rest)) = literal.split_last() {
        out.push((RESOURCE, last.to_string()));
        out.push((PATH, rest.join(" ")));
    }
    out.push((TAGS, tool.origin.tags.join(" ")));
    out.push((DESCRIPTION, tool.description.clone()));
    let params: Vec<&str> = tool
        .call
        .arguments
        .iter()
        .filter_map(|a| a.original.as_deref())
        .collect();
    out.push((PARAMS, params.join(" ")));
    out
}

/// Whether the path's last segment is a parameter: `/pets/{id}` names one item.
fn ends_in_parameter(path: &str) -> bool {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .is_some_and(|s| s.starts_with('{'))
}

/// The sentences of a text: split after `.`, `!`, `?` followed by a space, and at line breaks.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let rest_trim = rest.trim_start();
        if rest_trim.is_empty() {
            return None;
        }
        let bytes = rest_trim.as_bytes();
        let mut end = bytes.len();
        for i in 0..bytes.len() {
            let stop = matches!(bytes[i], b'.' | b'!' | b'?')
                && bytes.get(i + 1).is_none_or(|c| c.is_ascii_whitespace());
            if stop || bytes[i] == b'\n' {
                end = i + 1;
                break;
            }
        }
        let (sentence, after) = rest_trim.split_at(end);
        rest = after;
        Some(sentence)
    })
}

/// Words too common in requests and descriptions to say which operation is meant.
const STOP: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "but", "by", "can", "do", "does", "each", "either", "for", "from", "has", "have",
    "how", "if", "in", "into", "is", "it", "its", "may", "more", "must", "no", "not", "of", "on",
    "one", "only", "optional", "or", "other", "should", "so", "such", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "use", "used",
    "using", "via", "was", "we", "were", "what", "when", "where", "which", "who", "will", "with",
    "would", "you", "your",
];

/// The stemmed term of a word of [`super::vocab::words`]; none for numbers, single letters and stop
/// words.
fn term(stemmer: &Stemmer, word: &str) -> Option<String> {
    let keep = word.len() > 1 && !word.bytes().all(|b| b.is_ascii_digit()) && !STOP.contains(&word);
    keep.then(|| stemmer.stem(word).into_owned())
}

/// What the request asks to do, from its first verb: "List issues" reads; "Add a comment"
/// creates. `list` is kept apart from other reads: it wants a collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Intent {
    List,
    Read,
    Create,
    Write,
    Destroy,
}

/// The intent of the first sentence's first known verb, if any among its first words.
fn intent(query: &str) -> Option<Intent> {
    let first = sentences(query).next()?;
    let words = super::vocab::words(first);
    let list_of = words.windows(2).any(|w| w[0] == "list" && w[1] == "of");
    words.iter().take(6).find_map(|w| {
        let w = w.as_str();
        let base = [Some(w), w.strip_suffix("es"), w.strip_suffix('s')];
        base.into_iter().flatten().find_map(|b| {
            Some(match vocab::effect_of(b)? {
                Effect::Reads if b == "list" || list_of => Intent::List,
                Effect::Reads => Intent::Read,
                Effect::Creates => Intent::Create,
                Effect::Writes => Intent::Write,
                Effect::Destroys => Intent::Destroy,
            })
        })
    })
}

/// How well an operation's method and path shape agree with the intent: 1 agrees, less does not.
fn agreement(intent: Option<Intent>, (method, item): (Method, bool)) -> f64 {
    let Some(intent) = intent else {
        return 1.0;
    };
    let read = matches!(method, Method::Get | Method::Head | Method::Query);
    match intent {
        Intent::List if read && !item => 1.0,
        Intent::List if read => 0.85,
        Intent::Read if read => 1.0,
        Intent::List | Intent::Read => 0.7,
        Intent::Create => match method {
            Method::Post => 1.0,
            Method::Put => 0.85,
            _ => 0.7,
        },
        Intent::Write => match method {
            Method::Patch | Method::Put => 1.0,
            Method::Post => 0.85,
            _ => 0.7,
        },
        Intent::Destroy => match method {
            Method::Delete => 1.0,
            Method::Post | Method::Patch | Method::Put => 0.85,
            _ => 0.7,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the hits for `query` among the operations of `paths` (an OpenAPI `paths`
    /// object in YAML flow style).
    fn ranked(paths: &str, query: &str) -> Vec<(String, f64)> {
        let spec = format!("openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\npaths: {paths}\n");
        let tools = crate::convert_str("t.yaml", &spec, &crate::Options::default())
            .unwrap()
            .tools;
        Index::new(&tools)
            .search(query, 10)
            .into_iter()
            .map(|h| (tools[h.index].name.clone(), h.score))
            .collect()
    }

    const OK: &str = "responses: {'200': {description: ok}}";

    #[test]
    fn equal_scores_keep_document_order() {
        let paths = format!(
            "{{/b/pets: {{get: {{operationId: b_list_pets, summary: List pets, {OK}}}}}, \
              /a/pets: {{get: {{operationId: a_list_pets, summary: List pets, {OK}}}}}}}"
        );
        let hits = ranked(&paths, "list the pets");
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].1, hits[1].1);
        assert_eq!(hits[0].0, "b_list_pets");
    }

    #[test]
    fn plurals_and_styles_meet() {
        let paths = format!(
            "{{/things: {{get: {{operationId: listThings, {OK}}}}}, \
              '/repos/{{repo}}/issueComments': {{get: {{operationId: get_issue_comment_list, {OK}}}}}}}"
        );
        let hits = ranked(&paths, "comments on an issue");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].0, "get_issue_comment_list");
    }

    #[test]
    fn a_name_the_request_covers_wins() {
        // Both names hold "delete" and "issue", and so does the longer one's description; the
        // shorter name is all the request asks.
        let paths = format!(
            "{{'/v2/{{id}}': {{delete: {{operationId: deleteIssueTypeProperty, \
                summary: Delete issue type property, \
                description: Deletes the issue type property of an issue; deleting the issue keeps it, {OK}}}}}, \
              '/v1/{{id}}': {{delete: {{operationId: deleteIssue, summary: Delete issue, {OK}}}}}}}"
        );
        let hits = ranked(&paths, "Delete an existing issue.");
        assert_eq!(hits[0].0, "delete_issue");
        // By a clear margin: term frequencies alone leave the two within a few percent.
        assert!(hits[0].1 > 1.2 * hits[1].1, "{hits:?}");
    }

    #[test]
    fn the_first_sentence_counts_more() {
        let paths = format!(
            "{{/pets: {{get: {{operationId: listPets, {OK}}}}}, \
              /owners: {{get: {{operationId: listOwners, {OK}}}}}}}"
        );
        let hits = ranked(&paths, "List the pets. Owners are not listed.");
        assert_eq!(hits[0].0, "list_pets");
        let hits = ranked(&paths, "List the owners. Pets are not listed.");
        assert_eq!(hits[0].0, "list_owners");
    }

    #[test]
    fn words_split_in_any_style() {
        assert_eq!(
            super::vocab::words("createIssueComment issue_number sub-issues getHTTPStatus v1"),
            [
                "create", "issue", "comment", "issue", "number", "sub", "issues", "get", "http",
                "status", "v1"
            ]
        );
    }

    #[test]
    fn sentences_split_at_stops() {
        let s: Vec<&str> = sentences("Get a pet. Use v1.2 only!\nThen x").collect();
        assert_eq!(s, ["Get a pet.", "Use v1.2 only!", "Then x"]);
    }
}
