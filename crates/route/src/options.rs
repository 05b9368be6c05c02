//! A string parameter that takes one of a few options: those its schema
//! lists (`enum`), or those its description writes as `a | b | c` or after
//! "one of:" (`One of: preview, staging, production`). A value
//! copied from the message is written as the option it names ("cooling" is
//! `cool`), and one that names none is no value the tool accepts.

use riverse_tool::ToolManifest;

use crate::glossary::{glosses, mentions};
use crate::lexicon::english_words;
use crate::script::is_cjk;

/// The options of `tool`'s parameter `name`, or none when it takes any text.
pub fn param_options(tool: &ToolManifest, name: &str) -> Vec<String> {
    let listed = tool
        .input_schema
        .as_ref()
        .and_then(|schema| schema.pointer(&format!("/properties/{name}/enum")))
        .and_then(|options| options.as_array());
    if let Some(listed) = listed {
        return listed
            .iter()
            .filter_map(|option| option.as_str().map(str::to_owned))
            .collect();
    }
    let description = tool.parameters.get(name).map_or("", String::as_str);
    let parts: Vec<&str> = description.split('|').map(str::trim).collect();
    let is_option = |part: &&str| {
        !part.is_empty()
            && part.split_whitespace().count() <= 2
            && part
                .chars()
                .all(|c| c.is_alphanumeric() || " -_".contains(c))
    };
    if parts.len() >= 2 && parts.iter().all(is_option) {
        return parts.into_iter().map(str::to_owned).collect();
    }
    listed_after_one_of(description, is_option)
}

/// The options a description lists after "one of:", separated by commas
/// and a last "or", up to the end of the sentence; none unless each is an
/// option's name.
fn listed_after_one_of(description: &str, is_option: impl Fn(&&str) -> bool) -> Vec<String> {
    let lower = description.to_lowercase();
    let Some(at) = lower.find("one of:") else {
        return Vec::new();
    };
    let rest = &description[at + "one of:".len()..];
    let list = rest.split(['.', ';', '(']).next().unwrap_or("");
    let parts: Vec<&str> = list
        .split(',')
        .flat_map(|part| part.split(" or "))
        .map(|part| part.trim().trim_start_matches("or ").trim())
        .filter(|part| !part.is_empty())
        .collect();
    if parts.len() >= 2 && parts.iter().all(is_option) {
        parts.into_iter().map(str::to_owned).collect()
    } else {
        Vec::new()
    }
}

/// The option `value` names: one it is, one a word of it starts with or a
/// word of it begins ("cooling" names `cool`), or one the English words of
/// its glossary concepts name (午前 names `morning`), or else the first
/// option the message names one of these ways, the lexicons' senses of a
/// Chinese or Japanese term last (家庭 names `family`, 普通車 `car`);
/// `None` when it names none.
/// An option of several words named by all of them, close together, comes
/// before any named by one word ("in progress" names `in_progress`, "change
/// three locks" `lock_change`, not `lockout`). An option the message names
/// in full that holds the one found is taken instead ("semi detached" names
/// `semi_detached`, not `detached`).
pub fn snap_to_option(value: &str, message: &str, options: &[String]) -> Option<String> {
    let value = value.trim().to_lowercase();
    let lower = message.to_lowercase();
    let found = options
        .iter()
        .find(|option| option.to_lowercase() == value)
        .cloned()
        .or_else(|| code_written(message, options))
        .or_else(|| phrase_named(&value, options))
        .or_else(|| named_in(&value, options))
        .or_else(|| named_in(&cjk_glosses(&value), options))
        .or_else(|| phrase_named(&english_words(&value), options))
        .or_else(|| named_in(&english_words(&value), options))
        .or_else(|| unit_of_a_number(message, options))
        .or_else(|| phrase_named(&lower, options))
        .or_else(|| named_in(&lower, options))
        .or_else(|| named_in(&cjk_glosses(&lower), options))
        .or_else(|| named_in(&english_words(&lower), options))
        .or_else(|| named_by_time(&lower, options))
        .or_else(|| named_by_size(&lower, options))
        .or_else(|| named_by_own_word(&lower, options))
        .or_else(|| named_by_own_word(&english_words(&lower), options))?;
    let found_words = option_words(&found);
    let holding = options_named(message, options).into_iter().find(|named| {
        let words = option_words(named);
        words.len() > found_words.len() && found_words.iter().all(|word| words.contains(word))
    });
    Some(holding.unwrap_or(found))
}

/// Longest option read as a code written in capitals ("MX", "CNAME").
const LONGEST_CODE: usize = 5;

/// The option that is a short code in capitals (`A`, `MX`, `CNAME` of DNS
/// record types) and that `message` writes as a word of its own, in
/// capitals, after its first word ("add an A record", "I need an MX
/// record"): a code so short is a letter or a word otherwise, so only its
/// case tells it.
fn code_written(message: &str, options: &[String]) -> Option<String> {
    let codes: Vec<&String> = options
        .iter()
        .filter(|option| {
            option.len() <= LONGEST_CODE
                && option.chars().any(|c| c.is_ascii_uppercase())
                && option
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
        .collect();
    if codes.is_empty() {
        return None;
    }
    message
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .skip(1)
        .find_map(|word| codes.iter().find(|code| code.as_str() == word))
        .map(|code| (*code).clone())
}

/// Options that say when a thing is, each with words a message says it
/// by ("what's on right now" asks for `current` ones, 已经结束 for `past`).
const TIMES: [(&str, &[&str]); 3] = [
    (
        "current",
        &[
            "now",
            "currently",
            "ongoing",
            "at the moment",
            "running",
            "现在",
            "目前",
            "正在",
            "当前",
            "現在",
            "開催中",
            "今",
        ],
    ),
    (
        "upcoming",
        &[
            "coming up",
            "soon",
            "future",
            "next",
            "later",
            "即将",
            "将来",
            "以后",
            "今後",
            "これから",
            "予定",
        ],
    ),
    (
        "past",
        &[
            "ended",
            "finished",
            "over",
            "previous",
            "earlier",
            "former",
            "已经结束",
            "结束",
            "过去",
            "以前",
            "終了",
            "終わった",
            "過去",
        ],
    ),
];

/// Clothing sizes written as codes (`xs`, `m`, `xl`), each with the words
/// a message says it by.
const SIZES: [(&str, &[&str]); 6] = [
    (
        "xs",
        &["extra small", "x-small", "xsmall", "特小", "xsサイズ"],
    ),
    ("s", &["small", "小号", "小码", "sサイズ"]),
    ("m", &["medium", "med", "中号", "中码", "mサイズ"]),
    ("l", &["large", "大号", "大码", "lサイズ"]),
    (
        "xl",
        &[
            "extra large",
            "x-large",
            "xlarge",
            "加大",
            "特大",
            "xlサイズ",
        ],
    ),
    ("xxl", &["xx-large", "xxlarge", "2xl", "double extra large"]),
];

/// The size code among `options` that `lower` (a lowercase message) names
/// in words ("a splash jacket in medium" names `m`); the longest words
/// win ("extra large" is `xl`, not `l`).
fn named_by_size(lower: &str, options: &[String]) -> Option<String> {
    options
        .iter()
        .filter_map(|option| {
            let code = option.to_lowercase();
            let (_, words) = SIZES.iter().find(|(size, _)| *size == code)?;
            let said = words
                .iter()
                .filter(|words| mentions(lower, words))
                .map(|words| words.len())
                .max()?;
            Some((said, option))
        })
        .max_by_key(|(said, _)| *said)
        .map(|(_, option)| option.clone())
}

/// Shortest word that names an option of several words alone.
const OWN_WORD_LETTERS: usize = 5;

/// The one option of several words that `text` names by a word no other
/// option has, of [`OWN_WORD_LETTERS`] letters at least ("booster" of
/// `covid_booster`, "strike" of `vehicle_strike`); `None` when it names
/// none so, or several.
fn named_by_own_word(text: &str, options: &[String]) -> Option<String> {
    let words = option_words(text);
    let own_words = |option: &String| -> Vec<String> {
        let mine = option_words(option);
        if mine.len() < 2 {
            return Vec::new();
        }
        mine.into_iter()
            .filter(|word| word.chars().count() >= OWN_WORD_LETTERS)
            .filter(|word| {
                options
                    .iter()
                    .filter(|other| *other != option)
                    .all(|other| !option_words(other).contains(word))
            })
            .collect()
    };
    let named: Vec<&String> = options
        .iter()
        .filter(|option| {
            own_words(option)
                .iter()
                .any(|own| words.iter().any(|word| inflected(word, &[own.as_str()])))
        })
        .collect();
    match named[..] {
        [option] => Some(option.clone()),
        _ => None,
    }
}

/// The option `lower` (a lowercase message) names by when it is, among
/// options that say when: one of [`TIMES`] whose words it says.
fn named_by_time(lower: &str, options: &[String]) -> Option<String> {
    options
        .iter()
        .find(|option| {
            let option = option.to_lowercase();
            TIMES.iter().any(|(time, phrases)| {
                option == *time && phrases.iter().any(|phrase| mentions(lower, phrase))
            })
        })
        .cloned()
}

/// The English words of the glossary concepts Chinese or Japanese `text`
/// names (午前: morning); none for other text, whose own words are read.
fn cjk_glosses(text: &str) -> String {
    match text.chars().any(is_cjk) {
        true => glosses(text),
        false => String::new(),
    }
}

/// The words of an option's name, lowercase (`semi_detached`: semi,
/// detached).
fn option_words(option: &str) -> Vec<String> {
    let lower = option.to_lowercase();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut word_is_cjk = false;
    for c in lower.chars() {
        // Japanese and Chinese write no spaces: a Latin option stands
        // apart from the kana around it (昨日のWA18、502点).
        let cjk = is_cjk(c);
        if !c.is_alphanumeric() || !word.is_empty() && cjk != word_is_cjk {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            if !c.is_alphanumeric() {
                continue;
            }
        }
        word_is_cjk = cjk;
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The options `text` names, in the order it names them: each whose every
/// word ("ball" and "can" of `ball_can`) is a word of `text` within a few
/// words of the others, as written or inflected ("a can of balls",
/// "pressure washing"). A list of options ("racket, ball_can, shoes")
/// takes these for the items the message writes in its own words.
pub fn options_named(text: &str, options: &[String]) -> Vec<String> {
    let words: Vec<String> = option_words(text);
    let mut named: Vec<(usize, &String)> = options
        .iter()
        .filter_map(|option| {
            let lower = option.to_lowercase();
            let option_words: Vec<&str> = lower
                .split(|c: char| !c.is_alphanumeric())
                .filter(|word| !word.is_empty())
                .collect();
            earliest_naming(&words, &option_words).map(|at| (at, option))
        })
        .collect();
    named.sort_by_key(|(at, _)| *at);
    named
        .into_iter()
        .map(|(_, option)| option.clone())
        .collect()
}

/// Most words between the first and the last of an option's words.
const OPTION_WORDS_SPREAD: usize = 4;

/// The first option of two words or more that `text` names by all its
/// words, one other word between them at most ("in progress", "change
/// three locks" for `lock_change`).
fn phrase_named(text: &str, options: &[String]) -> Option<String> {
    let words: Vec<String> = option_words(text);
    options
        .iter()
        .filter_map(|option| {
            let lower = option_words(option);
            let option_words: Vec<&str> = lower.iter().map(String::as_str).collect();
            let spread = option_words.len();
            if spread < 2 {
                return None;
            }
            first_naming(&words, &option_words, spread).map(|at| (at, option))
        })
        .min_by_key(|(at, _)| *at)
        .map(|(_, option)| option.clone())
}

/// Where `words` first name every one of `option_words` within
/// [`OPTION_WORDS_SPREAD`] words of each other, at the first of them.
fn earliest_naming(words: &[String], option_words: &[&str]) -> Option<usize> {
    // "arrows" names `arrows_set`: a set, kit or pair is the thing itself.
    let named = match option_words {
        [head, tail] if GROUP_WORDS.contains(tail) => std::slice::from_ref(head),
        _ => option_words,
    };
    first_naming(words, named, OPTION_WORDS_SPREAD)
}

/// Words after an option's thing that name it in a group ("arrows_set",
/// "first_aid_kit" is not: its last word is the thing).
const GROUP_WORDS: &[&str] = &["set", "sets", "pair", "pairs", "pack", "packs"];

/// Where `words` first name every one of `option_words` within `spread`
/// words of each other, at the first of them.
fn first_naming(words: &[String], option_words: &[&str], spread: usize) -> Option<usize> {
    if option_words.is_empty() {
        return None;
    }
    (0..words.len()).find(|&start| {
        let window = &words[start..words.len().min(start + spread + 1)];
        inflected(&words[start], option_words)
            && option_words
                .iter()
                .all(|option_word| window.iter().any(|word| inflected(word, &[option_word])))
    })
}

/// Whether `word` is one of `option_words`, or an inflection of one: a
/// word of three letters or fewer takes only a plural "s", a longer one
/// up to three letters more or less ("wash", "washing"; "shoes", "shoe").
fn inflected(word: &str, option_words: &[&str]) -> bool {
    option_words.iter().any(|option_word| {
        if same_but_spelling(word, option_word) {
            return true;
        }
        let (long, short) = match word.len() >= option_word.len() {
            true => (word, *option_word),
            false => (*option_word, word),
        };
        if long == short {
            return true;
        }
        match short.chars().count() {
            0..=3 => long.strip_suffix('s') == Some(short),
            _ => long.starts_with(short) && long.len() - short.len() <= 3,
        }
    })
}

/// Whether two words of five letters or more are one word spelt the
/// British and the American way ("mouldy", "moldy"; "colour", "color";
/// "organise", "organize").
fn same_but_spelling(word: &str, other: &str) -> bool {
    let american = |word: &str| {
        word.replace("oul", "ol")
            .replace("our", "or")
            .replace("ise", "ize")
    };
    word != other
        && word.chars().count() >= 5
        && other.chars().count() >= 5
        && american(word) == american(other)
}

/// The option written as the unit of a number ("500g", "2 kg" for a unit
/// of g, kg, ml): short options are matched here, whole.
fn unit_of_a_number(message: &str, options: &[String]) -> Option<String> {
    let lower = message.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || ",;()".contains(c))
        .filter(|token| !token.is_empty())
        .collect();
    for (at, token) in tokens.iter().enumerate() {
        let unit = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if unit.len() == token.len() {
            continue;
        }
        let unit = match unit.trim_end_matches(|c: char| c.is_ascii_punctuation()) {
            "" => tokens.get(at + 1).map_or("", |next| {
                next.trim_end_matches(|c: char| c.is_ascii_punctuation())
            }),
            unit => unit,
        };
        if let Some(option) = options.iter().find(|option| option.to_lowercase() == unit) {
            return Some(option.clone());
        }
    }
    None
}

/// The option whose name is a word of `text`, or a stem of one (at least
/// three letters each way), earliest in `text` first.
fn named_in(text: &str, options: &[String]) -> Option<String> {
    // A hyphenated word is tried whole first ("e-bikes" names `ebike`); a
    // Latin word stands apart from the CJK text around it (昨日のWA18、).
    let words = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .flat_map(split_at_script)
        .flat_map(|word| {
            let whole = word.replace('-', "");
            let parts = word.split('-').map(str::to_owned);
            std::iter::once(whole).chain(parts.filter(|_| word.contains('-')))
        });
    for word in words.filter(|word| word.chars().count() >= 3) {
        let found = options.iter().find(|option| {
            let option = option.to_lowercase();
            option.chars().count() >= 3
                && (word.starts_with(&option)
                    || option.starts_with(word.as_str())
                    || same_but_spelling(&word, &option))
        });
        if let Some(option) = found {
            return Some(option.clone());
        }
    }
    None
}

/// `word` cut where it turns between CJK and other script ("昨日のwa18"
/// as "昨日の", "wa18").
fn split_at_script(word: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut previous: Option<bool> = None;
    for (at, c) in word.char_indices() {
        let cjk = is_cjk(c);
        if previous.is_some_and(|was| was != cjk) {
            pieces.push(&word[start..at]);
            start = at;
        }
        previous = Some(cjk);
    }
    pieces.push(&word[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(description: &str) -> ToolManifest {
        ToolManifest {
            name: "thermostat".into(),
            parameters: [("mode".to_owned(), description.to_owned())]
                .into_iter()
                .collect(),
            ..ToolManifest::default()
        }
    }

    #[test]
    fn options_come_from_the_schema_or_a_description_of_alternatives() {
        assert_eq!(
            param_options(&tool("heat | cool | auto | off"), "mode"),
            ["heat", "cool", "auto", "off"]
        );
        let mut listed = tool("The mode");
        listed.input_schema = Some(json!({"properties": {"mode": {"enum": ["eco", "boost"]}}}));
        assert_eq!(param_options(&listed, "mode"), ["eco", "boost"]);
        assert_eq!(
            param_options(
                &tool("Cabin class, one of: economy, business or first"),
                "mode"
            ),
            ["economy", "business", "first"]
        );
        assert_eq!(
            param_options(
                &tool("Activity level, one of: sedentary, very active"),
                "mode"
            ),
            ["sedentary", "very active"]
        );
        for free in [
            "Zone or room",
            "Carrier code, e.g. ups | fedex, dhl",
            "a |",
            "",
        ] {
            assert!(param_options(&tool(free), "mode").is_empty(), "{free}");
        }
    }

    #[test]
    fn a_size_said_in_words_names_its_code() {
        let sizes: Vec<String> = ["xs", "s", "m", "l", "xl"].map(String::from).to_vec();
        let named = |message: &str| snap_to_option("", message, &sizes);
        assert_eq!(
            named("a splash jacket in medium please").as_deref(),
            Some("m")
        );
        assert_eq!(named("extra large, thanks").as_deref(), Some("xl"));
        assert_eq!(named("要大号的").as_deref(), Some("l"));
        assert_eq!(named("the usual one"), None);
    }

    #[test]
    fn items_in_their_own_words_name_options() {
        let gear: Vec<String> = ["racket", "ball_can", "shoes", "ball_machine"]
            .map(String::from)
            .into();
        assert_eq!(options_named("a can of balls", &gear), ["ball_can"]);
        assert_eq!(
            options_named("I need a ball machine", &gear),
            ["ball_machine"]
        );
        assert_eq!(
            options_named("shoes, and a racket", &gear),
            ["shoes", "racket"],
            "in the order written"
        );
        assert!(options_named("a ball, then a long talk about cans", &gear).is_empty());
        assert!(options_named("candles", &gear).is_empty());
        let yard: Vec<String> = ["pressure_wash", "antifouling", "winter_storage"]
            .map(String::from)
            .into();
        assert_eq!(
            options_named("winter storage + new antifouling", &yard),
            ["winter_storage", "antifouling"]
        );
        assert_eq!(options_named("pressure washing", &yard), ["pressure_wash"]);
        let hire: Vec<String> = ["recurve_bow", "arrows_set", "arm_guard"]
            .map(String::from)
            .into();
        assert_eq!(
            options_named("a recurve bow, arrows and an arm guard", &hire),
            ["recurve_bow", "arrows_set", "arm_guard"]
        );
        let rounds: Vec<String> = ["wa18", "wa70", "national"].map(String::from).into();
        assert_eq!(
            options_named("先週のWA70、580点でした", &rounds),
            ["wa70"],
            "a Latin option among kana"
        );
    }

    #[test]
    fn a_value_is_written_as_the_option_it_names() {
        let options: Vec<String> = ["heat", "cool", "auto", "off"].map(String::from).into();
        let snap = |value| snap_to_option(value, "switch to cooling, hold it", &options);
        assert_eq!(snap("Cool").as_deref(), Some("cool"));
        assert_eq!(snap("cooling").as_deref(), Some("cool"));
        assert_eq!(snap("heating mode").as_deref(), Some("heat"));
        assert_eq!(
            snap("hold it").as_deref(),
            Some("cool"),
            "the option the message names"
        );
        assert_eq!(snap_to_option("the den", "the den please", &options), None);
        let slots = ["morning".to_owned(), "afternoon".to_owned()];
        assert_eq!(
            snap_to_option("午後", "午後に変更して", &slots).as_deref(),
            Some("afternoon")
        );
        let tours = ["highlights", "architecture", "family", "sculpture_garden"].map(str::to_owned);
        assert_eq!(
            snap_to_option("", "12月27日下午两点的家庭导览", &tours).as_deref(),
            Some("family"),
            "a Chinese term by its lexicon senses"
        );
        let classes = ["car", "motorcycle", "van", "truck"].map(str::to_owned);
        assert_eq!(
            snap_to_option("", "車両を追加したいです。普通車です。", &classes).as_deref(),
            Some("car")
        );
        assert_eq!(
            snap_to_option("", "ナンバーは品川300あ1234", &classes),
            None
        );
        let issues = ["too_wet", "wrong_size", "short_delivery", "mouldy"].map(str::to_owned);
        assert_eq!(
            snap_to_option("", "订单FW-30777送来的木柴发霉了", &issues).as_deref(),
            Some("mouldy"),
            "the lexicon's \"moldy\" spelt the other way"
        );
        let vaccines = ["flu", "covid_booster", "shingles"].map(str::to_owned);
        assert_eq!(
            snap_to_option("", "can I get a booster this week?", &vaccines).as_deref(),
            Some("covid_booster"),
            "a word only one option has"
        );
        let damage = ["leak", "truck_strike", "vehicle_strike"].map(str::to_owned);
        assert_eq!(
            snap_to_option("", "a strike, cap sheared off", &damage),
            None,
            "a word two options share"
        );
        let rounds = ["portsmouth", "wa18", "wa70"].map(str::to_owned);
        assert_eq!(
            snap_to_option("", "昨日のWA18、502点でした。", &rounds).as_deref(),
            Some("wa18"),
            "a Latin code inside Japanese text"
        );
        let shown = ["current", "upcoming", "past"].map(str::to_owned);
        let by_time = |message| snap_to_option("", message, &shown);
        assert_eq!(
            by_time("what exhibitions are on right now?").as_deref(),
            Some("current")
        );
        assert_eq!(
            by_time("anything coming up in May?").as_deref(),
            Some("upcoming")
        );
        assert_eq!(by_time("有哪些已经结束的展览？").as_deref(), Some("past"));
        assert_eq!(by_time("which exhibitions have sculptures?"), None);
        let homes = ["flat", "semi_detached", "detached"].map(str::to_owned);
        assert_eq!(
            snap_to_option("detached", "a semi detached with 9 windows", &homes).as_deref(),
            Some("semi_detached"),
            "an option named in full holds the one picked"
        );
        let units: Vec<String> = ["g", "kg", "ml", "pcs"].map(String::from).into();
        assert_eq!(
            snap_to_option("", "add 500g of flour", &units).as_deref(),
            Some("g")
        );
        assert_eq!(
            snap_to_option("", "add 2 kg of flour", &units).as_deref(),
            Some("kg")
        );
        assert_eq!(snap_to_option("", "add flour, go", &units), None);
        let vehicles: Vec<String> = ["scooter", "bike", "ebike"].map(String::from).into();
        assert_eq!(
            snap_to_option("e-bikes", "any e-bikes near", &vehicles).as_deref(),
            Some("ebike")
        );
        assert_eq!(
            snap_to_option("bikes", "any bikes near", &vehicles).as_deref(),
            Some("bike")
        );
    }

    #[test]
    fn a_short_code_in_capitals_is_named_in_capitals_only() {
        let types: Vec<String> = ["A", "AAAA", "CNAME", "MX", "TXT"]
            .map(str::to_owned)
            .to_vec();
        let snap = |message: &str| snap_to_option("", message, &types);
        assert_eq!(
            snap("add an A record for shop.example.se pointing to 203.0.113.45").as_deref(),
            Some("A")
        );
        assert_eq!(
            snap("I need an MX record on the root of example.co.uk").as_deref(),
            Some("MX")
        );
        assert_eq!(snap("A record for the shop please"), None, "the first word");
        assert_eq!(snap("add a record for the shop"), None, "an article");
    }

    #[test]
    fn an_option_of_several_words_is_named_by_them_all_before_one_word_names_another() {
        let gear = ["shoes", "harness", "bag", "chalk_bag"].map(str::to_owned);
        assert_eq!(
            snap_to_option(
                "チョークバッグ",
                "シューズとチョークバッグを借りたい",
                &gear
            )
            .as_deref(),
            Some("chalk_bag"),
            "a Japanese item read as its English words"
        );
        let statuses = ["open", "in_progress", "resolved", "closed"].map(str::to_owned);
        for message in [
            "move PAY-88 to in_progress",
            "set PAY-88 to in progress",
            "mark PAY-88 in-progress",
        ] {
            assert_eq!(
                snap_to_option("", message, &statuses).as_deref(),
                Some("in_progress"),
                "{message}"
            );
        }
        let jobs = ["lockout", "lock_change", "key_cutting", "safe_opening"].map(str::to_owned);
        assert_eq!(
            snap_to_option("", "how much to change three locks?", &jobs).as_deref(),
            Some("lock_change")
        );
        assert_eq!(
            snap_to_option("lock change", "a lock change, 2 locks", &jobs).as_deref(),
            Some("lock_change")
        );
        assert_eq!(
            snap_to_option("", "a lockout at my flat", &jobs).as_deref(),
            Some("lockout"),
            "one word still names an option of one"
        );
        assert_eq!(
            snap_to_option("", "change the locks on the back door", &jobs).as_deref(),
            Some("lock_change"),
            "one word between the option's words"
        );
        assert_eq!(
            snap_to_option(
                "",
                "the safe in the cellar needs a new lock fitted, then change",
                &jobs
            )
            .as_deref(),
            Some("safe_opening"),
            "words far apart name no option of several"
        );
    }
}
