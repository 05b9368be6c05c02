//! Parameters that take a person's name, and the Chinese and Japanese
//! spans that could be one: a name is two to four characters in Chinese
//! (王磊, 林小雨), a few more in Japanese (田中健一, ケン), and never a run
//! of dictionary words (线上票 is an online ticket, 水下时间 a time under
//! water) nor a span with digits in it.

use crate::lexicon::{english_words, is_all_terms};
use crate::meaning::name_words;
use crate::script::{has_kana, is_cjk};
use crate::words::SURNAMES_ZH;

/// Words of a parameter's name, beside "name", that say whose name it is.
const PERSON_ROLES: &[&str] = &[
    "full",
    "first",
    "last",
    "given",
    "family",
    "middle",
    "member",
    "customer",
    "client",
    "applicant",
    "runner",
    "voter",
    "proxy",
    "patient",
    "guest",
    "student",
    "child",
    "contact",
    "holder",
    "candidate",
    "person",
    "attendee",
    "participant",
    "player",
    "owner",
    "driver",
    "passenger",
    "visitor",
    "parent",
    "teacher",
    "volunteer",
    "caller",
    "requester",
    "signer",
    "tenant",
    "buyer",
    "recipient",
    "sender",
    "donor",
    "employee",
    "staff",
    "user",
    "your",
    "new",
    "camper",
    "skater",
    "diver",
    "buddy",
    "archer",
    "climber",
    "resident",
    "deceased",
    "bride",
    "groom",
    "instructor",
    "coach",
    "tutor",
    "carer",
    "pupil",
    "kid",
    "lead",
    "booker",
    "baby",
    "emergency",
    "of",
    "the",
];

/// Words of a plain `name` parameter's description that make it a person's.
const PERSON_DESCRIBED: &[&str] = &[
    "person",
    "your name",
    "full name",
    "customer",
    "member",
    "attendee",
    "applicant",
    "guest",
    "patient",
    "student",
    "participant",
    "who ",
];

/// Whether parameter `name`, described by `description`, takes a person's
/// name: `full_name`, `voter_name`, `surname`, or a `name` its description
/// gives to a person.
pub fn takes_person_name(name: &str, description: &str) -> bool {
    let words = name_words(name);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["surname" | "forename" | "firstname" | "lastname" | "fullname"] => true,
        ["name"] => {
            let description = description.to_lowercase();
            PERSON_DESCRIBED
                .iter()
                .any(|word| description.contains(word))
        }
        [roles @ .., "name"] => roles.iter().all(|role| PERSON_ROLES.contains(role)),
        _ => false,
    }
}

/// Words of a person's-name parameter that make it the name of the person
/// asking (`member_name`, `voter_name`), not of someone they name.
const SENDER_ROLES: &[&str] = &[
    "full",
    "member",
    "customer",
    "client",
    "applicant",
    "voter",
    "requester",
    "caller",
    "booker",
    "your",
    "holder",
    "owner",
    "tenant",
    "resident",
    "candidate",
    "user",
    "lead",
];

/// Words of a person's-name parameter that make it someone else's name
/// (`proxy_name`, `new_runner_name`), never the writer's.
const OTHER_ROLES: &[&str] = &[
    "proxy",
    "recipient",
    "new",
    "child",
    "kid",
    "baby",
    "buddy",
    "emergency",
    "deceased",
    "instructor",
    "coach",
    "tutor",
    "carer",
    "teacher",
];

/// Whether parameter `name` takes the name of the person asking: a plain
/// `name` or `full_name` for a person, or one of the asker's roles
/// (`member_name`, `applicant_name`).
pub fn takes_senders_name(name: &str, description: &str) -> bool {
    let words = name_words(name);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    takes_person_name(name, description)
        && match words.as_slice() {
            ["name"] => true,
            [roles @ .., "name"] => roles.iter().all(|role| SENDER_ROLES.contains(role)),
            _ => false,
        }
}

/// Whether parameter `name` may take the writer's own name: any but one
/// for someone else's name (`proxy_name`, `new_runner_name`).
pub fn may_take_own_name(name: &str, description: &str) -> bool {
    !(takes_person_name(name, description)
        && name_words(name)
            .iter()
            .any(|word| OTHER_ROLES.contains(&word.as_str())))
}

/// Whether `value`, in `message`, could be a person's name, as far as a
/// Chinese or Japanese span goes (a Latin-script one always could): all
/// CJK, two characters or more; in Japanese up to eight, in Chinese up to
/// four and no run of dictionary words unless it opens with a family name
/// (林小雨 though 小雨 is drizzle) or a familiar 小, 阿 or 老 (小王).
pub fn may_name_a_person(value: &str, message: &str) -> bool {
    let value = value.trim();
    if !value.chars().any(is_cjk) {
        return true;
    }
    if !value.chars().all(|c| is_cjk(c) || matches!(c, '・' | '·')) {
        return false;
    }
    let chars = value.chars().count();
    if has_kana(message) {
        return (2..=8).contains(&chars);
    }
    if !(2..=4).contains(&chars) || is_all_terms(value) {
        return false;
    }
    let familiar = value.strip_prefix(['小', '阿', '老']).unwrap_or(value);
    SURNAMES_ZH.prefix_of(familiar).is_some() || english_words(value).is_empty()
}

/// Whether `value` could be the part of a person's name that parameter
/// `name` takes: a family or given name alone may be one Chinese
/// character (李, 磊); else as [`may_name_a_person`].
pub fn may_name_a_person_as(name: &str, value: &str, message: &str) -> bool {
    let part = name_words(name)
        .iter()
        .any(|word| NAME_PARTS.contains(&word.as_str()));
    let single_han = value.trim().chars().count() == 1
        && value
            .trim()
            .chars()
            .all(|c| is_cjk(c) && !has_kana(&c.to_string()));
    (part && single_han) || may_name_a_person(value, message)
}

/// Words of a parameter's name that make it one part of a person's name.
const NAME_PARTS: [&str; 8] = [
    "first",
    "last",
    "given",
    "family",
    "middle",
    "surname",
    "forename",
    "firstname",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persons_name_parameter_is_told_by_its_name_or_description() {
        assert!(takes_person_name("full_name", "the applicant's full name"));
        assert!(takes_person_name(
            "new_runner_name",
            "name of the new runner"
        ));
        assert!(takes_person_name("surname", "family name"));
        assert!(takes_person_name("name", "your full name"));
        assert!(!takes_person_name("name", "name of the tank"));
        assert!(!takes_person_name("team_name", "the team's name"));
        assert!(!takes_person_name("horse_name", "the horse"));
        assert!(takes_senders_name("member_name", "the member's name"));
        assert!(takes_senders_name("voter_name", "name of the voter"));
        assert!(!takes_senders_name("proxy_name", "who votes for you"));
        assert!(!takes_senders_name("first_name", "first name"));
        assert!(may_take_own_name("first_name", "first name"));
        assert!(!may_take_own_name("proxy_name", "who votes for you"));
        assert!(may_take_own_name(
            "attorney",
            "name of the responsible attorney"
        ));
    }

    #[test]
    fn a_chinese_name_is_short_and_no_run_of_words() {
        for name in ["王磊", "林小雨", "陈静", "小王", "美玲", "Wang Lei"] {
            assert!(may_name_a_person(name, "名字王磊"), "{name}");
        }
        for span in [
            "线上票",
            "水下时间",
            "把3390号码布转让给李明",
            "帮我查一下我有没有登记成选民",
        ] {
            assert!(!may_name_a_person(span, "名字王磊"), "{span}");
        }
        for name in ["田中健一", "ケン", "佐藤美咲"] {
            assert!(may_name_a_person(name, "名前は佐藤美咲です"), "{name}");
        }
        assert!(!may_name_a_person("墓", "田中一郎の墓を探しています"));
        assert!(may_name_a_person_as(
            "last_name",
            "李",
            "添加一个人：李秀英"
        ));
        assert!(may_name_a_person_as(
            "first_name",
            "秀英",
            "添加一个人：李秀英"
        ));
        assert!(!may_name_a_person_as(
            "full_name",
            "李",
            "添加一个人：李秀英"
        ));
    }
}
