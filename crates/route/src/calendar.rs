//! The English names of the days of the week and the months, lowercase:
//! one table for every rule that reads them.

/// Full day names, Monday first.
pub const WEEKDAY_NAMES: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Short day names, each with its day's index in [`WEEKDAY_NAMES`];
/// "sat", "sun" and "wed" are English words too, so a rule takes them only
/// where a word before makes them days.
pub const SHORT_WEEKDAY_NAMES: [(&str, usize); 11] = [
    ("mon", 0),
    ("tue", 1),
    ("tues", 1),
    ("wed", 2),
    ("weds", 2),
    ("thu", 3),
    ("thur", 3),
    ("thurs", 3),
    ("fri", 4),
    ("sat", 5),
    ("sun", 6),
];

/// Month names, January first ("since March", "May 14").
pub const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
