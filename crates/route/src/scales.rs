//! A number the message writes in one unit, for a parameter that asks for
//! another: "in 2 hours" for a delay "in minutes" is 120, "12 minutes" for
//! a timer in seconds is 720, "1.68 m" for a height in centimetres is 168,
//! and "10%" for a rate "as a decimal" is 0.1.
//!
//! The parameter's unit is the one its description names after "in" ("Delay
//! from now, in minutes"), or else the last word of its name (`timeout_ms`,
//! `weight_kg`); the message's is the word right after the number ("2-hour",
//! "24h", "8分", "6小时"). Only units of one kind convert (a time to a time,
//! a length to a length, a mass to a mass); anything else is left as
//! written.

use crate::numbers::numbers;

/// One unit: its kind, its size in the kind's base unit, and its names.
struct Unit {
    kind: Kind,
    size: f64,
    names: &'static [&'static str],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Time,
    Length,
    Mass,
    Volume,
    Area,
}

const UNITS: [Unit; 26] = [
    unit(
        Kind::Time,
        0.001,
        &[
            "ms",
            "msec",
            "millisecond",
            "milliseconds",
            "毫秒",
            "ミリ秒",
        ],
    ),
    unit(
        Kind::Time,
        1.0,
        &["s", "sec", "secs", "second", "seconds", "秒", "秒钟"],
    ),
    unit(
        Kind::Time,
        60.0,
        &["min", "mins", "minute", "minutes", "分", "分钟", "分間"],
    ),
    unit(
        Kind::Time,
        3600.0,
        &["h", "hr", "hrs", "hour", "hours", "小时", "時間", "个小时"],
    ),
    unit(Kind::Time, 86400.0, &["d", "day", "days", "天", "日間"]),
    unit(
        Kind::Time,
        604800.0,
        &["wk", "wks", "week", "weeks", "周", "週間", "个星期"],
    ),
    unit(Kind::Time, 1209600.0, &["fortnight", "fortnights"]),
    unit(
        Kind::Time,
        31557600.0,
        &["yr", "yrs", "year", "years", "岁", "歳", "年"],
    ),
    unit(
        Kind::Length,
        0.001,
        &[
            "mm",
            "millimeter",
            "millimeters",
            "millimetre",
            "millimetres",
            "毫米",
        ],
    ),
    unit(
        Kind::Length,
        0.01,
        &[
            "cm",
            "centimeter",
            "centimeters",
            "centimetre",
            "centimetres",
            "厘米",
            "公分",
            "センチ",
        ],
    ),
    unit(
        Kind::Length,
        1.0,
        &["m", "meter", "meters", "metre", "metres", "米", "メートル"],
    ),
    unit(Kind::Length, 0.0254, &["inch", "inches", "英寸", "インチ"]),
    unit(
        Kind::Length,
        0.3048,
        &["ft", "foot", "feet", "英尺", "フィート"],
    ),
    unit(
        Kind::Length,
        1609.344,
        &["mi", "mile", "miles", "英里", "マイル"],
    ),
    unit(
        Kind::Length,
        1000.0,
        &[
            "km",
            "kilometer",
            "kilometers",
            "kilometre",
            "kilometres",
            "公里",
            "キロメートル",
        ],
    ),
    unit(
        Kind::Mass,
        1.0,
        &["g", "gram", "grams", "gramme", "grammes", "克", "グラム"],
    ),
    unit(
        Kind::Mass,
        1000.0,
        &[
            "kg",
            "kilogram",
            "kilograms",
            "kilo",
            "kilos",
            "公斤",
            "千克",
            "キログラム",
        ],
    ),
    unit(
        Kind::Mass,
        28.349523,
        &["oz", "ounce", "ounces", "盎司", "オンス"],
    ),
    unit(
        Kind::Mass,
        453.59237,
        &["lb", "lbs", "pound", "pounds", "磅", "ポンド"],
    ),
    unit(
        Kind::Volume,
        0.001,
        &[
            "ml",
            "milliliter",
            "milliliters",
            "millilitre",
            "millilitres",
            "毫升",
        ],
    ),
    unit(
        Kind::Volume,
        1.0,
        &["l", "liter", "liters", "litre", "litres", "升", "リットル"],
    ),
    unit(
        Kind::Volume,
        3.785411784,
        &["gal", "gallon", "gallons", "加仑", "ガロン"],
    ),
    unit(
        Kind::Area,
        1.0,
        &[
            "m2",
            "m²",
            "㎡",
            "sqm",
            "sq m",
            "square metre",
            "square metres",
            "square meter",
            "square meters",
            "平方米",
            "平米",
            "平方メートル",
        ],
    ),
    unit(
        Kind::Area,
        0.09290304,
        &[
            "sq ft",
            "sqft",
            "ft2",
            "ft²",
            "square foot",
            "square feet",
            "平方英尺",
        ],
    ),
    unit(
        Kind::Area,
        4046.8564224,
        &["acre", "acres", "英亩", "エーカー"],
    ),
    unit(
        Kind::Area,
        10000.0,
        &["ha", "hectare", "hectares", "公顷", "ヘクタール"],
    ),
];

/// Words after a number that count people ("4 guests", 三个人, 2名): a
/// head count, the value of no parameter measured in a unit.
const PEOPLE_COUNTED: [&str; 16] = [
    "people", "persons", "person", "guests", "adults", "adult", "kids", "children", "child", "pax",
    "of us", "个人", "人", "位", "名", "名様",
];

const fn unit(kind: Kind, size: f64, names: &'static [&'static str]) -> Unit {
    Unit { kind, size, names }
}

/// `number`, followed in the message by `after`, in the scale parameter
/// `name` described by `description` asks for; `None` when it asks for the
/// scale written, or for one the number cannot be put in.
pub fn in_described_scale(number: f64, after: &str, name: &str, description: &str) -> Option<f64> {
    if let Some(rate) = percent_as_fraction(number, after, description) {
        return Some(rate);
    }
    let written = unit_after(after)?;
    let wanted = described_unit(name, description)?;
    if written.kind != wanted.kind || written.size == wanted.size {
        return None;
    }
    Some(tidy(number * written.size / wanted.size))
}

/// Whether a number followed by `after` can be the value of parameter
/// `name`: one written with a unit ("62 kg", "15 min") only for a
/// parameter of that kind of unit, and never for one that counts things
/// ("Number of copies"); a number without a unit for any.
pub fn unit_fits(after: &str, name: &str, description: &str) -> bool {
    let Some(written) = unit_after(after) else {
        return !counts_people(after) || described_unit(name, description).is_none();
    };
    match described_unit(name, description) {
        Some(wanted) => wanted.kind == written.kind,
        None => {
            let description = description.to_lowercase();
            let description = description
                .strip_prefix("optional")
                .map_or(description.as_str(), |rest| {
                    rest.trim_start_matches([';', ',', ':', ' '])
                });
            !["number of", "how many", "count of"]
                .iter()
                .any(|count| description.starts_with(count))
        }
    }
}

/// Whether a number followed by `after` is written in a unit of the kind
/// parameter `name` asks for ("两个小时" for a length in minutes; not
/// "5星", nor a bare number).
pub fn written_in_unit_of(after: &str, name: &str, description: &str) -> bool {
    let (Some(written), Some(wanted)) = (unit_after(after), described_unit(name, description))
    else {
        return false;
    };
    written.kind == wanted.kind
}

/// Whether a number followed by `after` is written with a unit of time,
/// length, mass or volume ("5 km", "3 hours"): a measure, no sum of money.
pub fn written_with_unit(after: &str) -> bool {
    unit_after(after).is_some()
}

/// Whether `message` writes a number in a unit of the kind parameter
/// `name` asks for ("2 kg" for `min_weight_kg`, "90 minutes" for a length
/// "in hours"): a value only that parameter's tool takes.
pub fn measures_for(message: &str, name: &str, description: &str) -> bool {
    let Some(wanted) = described_unit(name, description) else {
        return false;
    };
    numbers(message).iter().any(|number| {
        unit_after(&message[number.bytes.end..]).is_some_and(|unit| unit.kind == wanted.kind)
    })
}

/// Whether `text` is nothing but the name of a unit ("min", "kg", 小时).
pub fn is_unit_name(text: &str) -> bool {
    let text = text.trim().to_lowercase();
    UNITS.iter().any(|unit| unit.names.contains(&text.as_str()))
}

/// Whether `text` writes a number with a unit after it ("3 kg", "2-hour",
/// "two litres").
pub fn writes_measure(text: &str) -> bool {
    numbers(text)
        .iter()
        .chain(&crate::spelled_numbers(text))
        .any(|number| unit_after(&text[number.bytes.end..]).is_some())
}

/// The words that name what `text` measures, for each number it writes
/// with a unit: the unit's full English names and its kind's ("3.5 hrs"
/// names hour, hours and time).
pub fn measured_words(text: &str) -> Vec<&'static str> {
    numbers(text)
        .iter()
        .filter_map(|number| unit_after(&text[number.bytes.end..]))
        .flat_map(|unit| {
            let kind = match unit.kind {
                Kind::Time => "time",
                Kind::Length => "length",
                Kind::Mass => "weight",
                Kind::Volume => "volume",
                Kind::Area => "area",
            };
            unit.names
                .iter()
                .copied()
                .filter(|name| name.is_ascii() && name.len() >= 4)
                .chain([kind])
        })
        .collect()
}

/// "10%" as 0.1 for a description that asks for a decimal or a fraction.
fn percent_as_fraction(number: f64, after: &str, description: &str) -> Option<f64> {
    let after = after.trim_start().to_lowercase();
    let percent = after.starts_with('%')
        || after.starts_with('％')
        || after.starts_with("percent")
        || after.starts_with("per cent");
    let description = description.to_lowercase();
    let fraction = [
        "decimal",
        "fraction",
        "0 to 1",
        "0-1",
        "0.0 to 1.0",
        "between 0 and 1",
    ]
    .iter()
    .any(|asked| {
        description.match_indices(asked).any(|(at, _)| {
            let next = description[at + asked.len()..].chars().next();
            !next.is_some_and(|c| c.is_ascii_digit())
        })
    });
    (percent && fraction).then(|| tidy(number / 100.0))
}

/// Whether the words right after a number count people ("3 guests", 三个人).
fn counts_people(after: &str) -> bool {
    let after = after.trim_start_matches([' ', '\u{a0}']).to_lowercase();
    PEOPLE_COUNTED.iter().any(|word| {
        after.starts_with(word)
            && (!word.is_ascii()
                || !after[word.len()..].starts_with(|c: char| c.is_ascii_alphanumeric()))
    })
}

/// Whether a unit is named right after a number ("个小时" of "一个小时").
pub(crate) fn starts_with_unit(after: &str) -> bool {
    unit_after(after).is_some()
}

/// The unit named right after a number: a word, or CJK characters.
fn unit_after(after: &str) -> Option<&'static Unit> {
    unit_named_after(after).map(|(unit, _)| unit)
}

/// Chinese words between a number and its unit that add a half to it
/// (两个半小时: two and a half hours).
const HALF_BEFORE_UNIT: [&str; 2] = ["个半", "個半"];

/// A half a Chinese or Japanese text writes with the unit after its number
/// (2時間半, 一年半, 两个半小时): 0.5, else 0.
pub fn written_half(after: &str) -> f64 {
    let half = match unit_named_after(after) {
        Some((_, name)) if !name.is_ascii() => {
            let after = after.trim_start();
            HALF_BEFORE_UNIT.iter().any(|half| after.starts_with(half))
                || after
                    .find(name)
                    .is_some_and(|at| after[at + name.len()..].starts_with('半'))
        }
        _ => false,
    };
    if half { 0.5 } else { 0.0 }
}

/// The unit named right after a number, and the name it goes by there.
fn unit_named_after(after: &str) -> Option<(&'static Unit, &'static str)> {
    let after = after.trim_start_matches([' ', '-', '\u{a0}']);
    let written: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    // A capital letter alone is a name's part ("3D printer", "4K"), no
    // unit; litres are the exception ("2L").
    if written.len() == 1 && written != "L" && written.chars().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    if !written.is_empty() {
        // The longest name the text starts with as whole words ("square
        // metres" before "square"; "m2" before "m").
        let lower = after.to_lowercase();
        return UNITS
            .iter()
            .flat_map(|unit| unit.names.iter().map(move |name| (unit, *name)))
            .filter(|(_, name)| {
                name.starts_with(|c: char| c.is_ascii_alphabetic())
                    && lower.starts_with(name)
                    && !lower[name.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
            })
            .max_by_key(|(_, name)| name.len());
    }
    // The longest CJK name the text starts with (分钟 before 分), a half
    // before it aside (两个半小时).
    let after = HALF_BEFORE_UNIT
        .iter()
        .find_map(|half| after.strip_prefix(half))
        .unwrap_or(after);
    UNITS
        .iter()
        .flat_map(|unit| unit.names.iter().map(move |name| (unit, *name)))
        .filter(|(_, name)| !name.is_ascii() && after.starts_with(name))
        .max_by_key(|(_, name)| name.len())
}

/// The unit a parameter asks for: named after "in" in its description, or
/// the last word of its name, or counted by its description ("how many
/// days"), or a plural unit in its name (`days_back`).
fn described_unit(name: &str, description: &str) -> Option<&'static Unit> {
    let description = description.to_lowercase();
    let words: Vec<&str> = description
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let after_in = words
        .windows(2)
        .find(|pair| pair[0] == "in" && find_unit(pair[1]).is_some())
        .and_then(|pair| find_unit(pair[1]));
    // "how many days back to look", "number of weeks"
    let counted = || {
        words
            .windows(3)
            .find(|three| {
                matches!((three[0], three[1]), ("how", "many") | ("number", "of"))
                    && find_unit(three[2]).is_some()
            })
            .and_then(|three| find_unit(three[2]))
    };
    let name = name.to_lowercase();
    let mut name_words = name.split(['_', '-']);
    let last = name_words.next_back();
    // A unit's plural anywhere in the name counts it (`days_back`,
    // `hours_worked`); a singular one must end it (`day_of_week` counts
    // nothing).
    let plural = || {
        name_words
            .filter(|word| word.len() > 2 && word.ends_with('s'))
            .find_map(find_unit)
    };
    after_in
        .or_else(|| last.and_then(find_unit))
        .or_else(counted)
        .or_else(plural)
}

fn find_unit(word: &str) -> Option<&'static Unit> {
    UNITS.iter().find(|unit| unit.names.contains(&word))
}

/// A converted number without the float noise of its conversion (1.68 m
/// is 168 cm, not 168.00000000000003).
fn tidy(number: f64) -> f64 {
    (number * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measure_names_its_unit_and_kind() {
        assert_eq!(
            measured_words("log 3.5 hrs for Acme"),
            ["hour", "hours", "time"]
        );
        assert!(measured_words("room 12 please").is_empty());
    }

    #[test]
    fn a_time_is_put_in_the_unit_the_parameter_asks_for() {
        let delay =
            |after| in_described_scale(2.0, after, "in_minutes", "Delay from now, in minutes");
        assert_eq!(delay(" hours to call mom"), Some(120.0));
        assert_eq!(delay("-hour break"), Some(120.0));
        assert_eq!(delay(" minutes"), None, "already in minutes");
        assert_eq!(delay(" people"), None, "no unit");
        assert_eq!(
            in_described_scale(
                12.0,
                " minutes for the eggs",
                "seconds",
                "Duration in seconds"
            ),
            Some(720.0)
        );
        assert_eq!(
            in_described_scale(2.0, " second timeout", "timeout_ms", "Timeout"),
            Some(2000.0),
            "the unit the name ends in"
        );
        assert_eq!(
            in_described_scale(6.0, "小时 gateway", "since_hours", "How far back, in hours"),
            None
        );
        assert_eq!(
            in_described_scale(8.0, "分のタイマー", "seconds", "Duration in seconds"),
            Some(480.0)
        );
    }

    #[test]
    fn a_capital_letter_alone_is_no_unit() {
        assert!(!writes_measure("3Dプリンターを予約"));
        assert!(!writes_measure("a 4K screen"));
        assert!(writes_measure("a 2L bottle"));
        assert!(writes_measure("3d later"));
    }

    #[test]
    fn a_count_of_units_is_read_from_the_name_or_the_description() {
        let back = |name, description| in_described_scale(2.0, " weeks", name, description);
        assert_eq!(back("days_back", "how far back to look"), Some(14.0));
        assert_eq!(back("lookback", "how many days back to look"), Some(14.0));
        assert_eq!(back("day_of_week", "Which day"), None, "no count");
        assert!(measures_for(
            "over 2 kg",
            "min_weight_kg",
            "smallest weight"
        ));
        assert!(!measures_for("over 2 kg", "days_back", "how far back"));
    }

    #[test]
    fn a_number_with_a_unit_fits_only_a_parameter_of_that_kind() {
        assert!(unit_fits(
            " kg, 1.68 m",
            "weight_kg",
            "Body weight in kilograms"
        ));
        assert!(!unit_fits(
            " m, and",
            "weight_kg",
            "Body weight in kilograms"
        ));
        assert!(unit_fits(" year old", "age", "Age in years"));
        assert!(!unit_fits(
            " min remind me",
            "copies",
            "Number of copies (default 1)"
        ));
        assert!(unit_fits(" kg in pounds", "value", "The value to convert"));
        assert!(unit_fits(" people", "people", "Number of people"));
    }

    #[test]
    fn a_half_written_with_the_unit_is_read() {
        assert_eq!(written_half("時間半出しました"), 0.5);
        assert_eq!(written_half("个半小时"), 0.5);
        assert_eq!(written_half("年半"), 0.5);
        assert_eq!(written_half("時間"), 0.0);
        assert_eq!(written_half(" hours, half"), 0.0);
        assert_eq!(
            in_described_scale(2.5, "个半小时", "minutes", "length in minutes"),
            Some(150.0)
        );
    }

    #[test]
    fn an_area_is_no_count_and_a_head_count_no_measure() {
        let bedrooms = ("bedrooms", "optional; number of bedrooms, for homes");
        let area = ("floor_area_m2", "optional; floor area in square metres");
        assert!(!unit_fits(" square metres.", bedrooms.0, bedrooms.1));
        assert!(unit_fits(" square metres.", area.0, area.1));
        assert!(unit_fits(" m² of office", area.0, area.1));
        assert_eq!(
            in_described_scale(2.0, " acres", area.0, area.1),
            Some(8093.712845)
        );
        assert!(unit_fits(" rooms", bedrooms.0, bedrooms.1));
        let distance = ("distance_m", "optional; shooting distance in metres");
        assert!(!unit_fits("个人", distance.0, distance.1));
        assert!(!unit_fits(" people", distance.0, distance.1));
        assert!(unit_fits("个人", "archers", "optional; number of archers"));
        assert!(unit_fits(" personal", distance.0, distance.1));
        assert!(unit_fits(
            " minutes",
            "duration_minutes",
            "length in minutes"
        ));
        assert!(unit_fits("m", distance.0, distance.1));
    }

    #[test]
    fn a_unit_name_alone_is_known() {
        assert!(is_unit_name("min"));
        assert!(is_unit_name(" Hours "));
        assert!(is_unit_name("小时"));
        let minutes = ("duration_minutes", "length of the meeting in minutes");
        assert!(written_in_unit_of("个小时，打5星", minutes.0, minutes.1));
        assert!(!written_in_unit_of("星", minutes.0, minutes.1));
        assert!(!written_in_unit_of(" people", minutes.0, minutes.1));
        assert!(!is_unit_name("curry"));
        assert!(!is_unit_name("30 min"));
    }

    #[test]
    fn lengths_and_masses_convert_but_not_across_kinds() {
        assert_eq!(
            in_described_scale(1.68, " m, and", "height_cm", "Height in centimetres"),
            Some(168.0)
        );
        assert_eq!(
            in_described_scale(3.0, " kg", "minutes", "Duration in minutes"),
            None
        );
    }

    #[test]
    fn a_percentage_is_a_decimal_where_the_description_asks_for_one() {
        let tip = "Tip rate as a decimal, e.g. 0.15";
        assert_eq!(
            in_described_scale(10.0, "% tip", "tip_rate", tip),
            Some(0.1)
        );
        assert_eq!(
            in_described_scale(30.0, "%", "brightness", "Brightness in percent, 0 to 100"),
            None
        );
    }
}
