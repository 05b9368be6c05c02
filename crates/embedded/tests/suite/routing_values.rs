//! Values read as the parameter means them: the writer's own name signed
//! or introduced goes to the parameter for the person asking, a Chinese
//! name is no clause, an area is no count and a head count no distance, a
//! half or a quarter written with its unit counts, a fortnight is two
//! weeks, "weekdays" are five day names, and a postcode is one value.

use chrono::NaiveDate;
use riverse_tool::ToolManifest;
use serde_json::json;

use super::model;
use super::routing::call_of;

fn rowing_tools() -> Vec<ToolManifest> {
    serde_json::from_value(json!([{
        "name": "nominate_substitute",
        "description": "Nominates a substitute rower to row in a member's place at a session.",
        "parameters": {
            "member_name": "full name of the member who cannot row",
            "substitute_name": "full name of the substitute",
            "session_date": "date of the session, YYYY-MM-DD"
        }
    }, {
        "name": "book_erg_room",
        "description": "Books the ergometer room for a group session.",
        "parameters": {
            "date": "YYYY-MM-DD",
            "hours": "length of the booking in hours",
            "rowers": "optional; number of rowers",
            "floor_space_m2": "optional; floor space needed in square metres"
        },
        "parameter_types": {"hours": "number", "rowers": "integer", "floor_space_m2": "number"}
    }, {
        "name": "set_training_reminder",
        "description": "Creates a recurring training reminder.",
        "parameters": {
            "time": "time of day, HH:MM",
            "days": "optional; lowercase English day names; every day when left out",
            "weeks": "optional; how many weeks the reminder runs"
        },
        "parameter_types": {"days": "array", "weeks": "integer"}
    }, {
        "name": "check_membership",
        "description": "Checks whether a person is a member of the club and returns their membership status.",
        "parameters": {"full_name": "the person's full name", "postcode": "home postcode"}
    }, {
        "name": "order_kit",
        "description": "Orders club kit to be posted to a member.",
        "parameters": {
            "item": "one of: zephyr, splash_jacket, unisuit",
            "size": "one of: xs, s, m, l, xl",
            "delivery_address": "optional; where to post it, if not the home address",
            "postcode": "member's home postcode"
        }
    }]))
    .unwrap()
}

#[test]
fn names_measures_halves_weekdays_and_postcodes_are_read_as_meant() {
    let tools = rowing_tools();
    let monday = NaiveDate::from_ymd_opt(2026, 12, 7).unwrap();
    let model = model().clone().on_day(monday);
    // "I'm Tom Avery" is the member's name, not the substitute's.
    let (named, substitute) = call_of(
        &model,
        "Jess Hollis will row in my place on Saturday, please put her down as my substitute. \
         I'm Tom Avery",
        &tools,
    );
    assert_eq!(named, "nominate_substitute", "{substitute:?}");
    assert_eq!(
        substitute["member_name"],
        json!("Tom Avery"),
        "{substitute:?}"
    );
    assert_eq!(
        substitute["substitute_name"],
        json!("Jess Hollis"),
        "{substitute:?}"
    );
    // Square metres are no count, and a quarter counts.
    let (_, room) = call_of(
        &model,
        "book the erg room on friday for three and a quarter hours, about 40 square metres",
        &tools,
    );
    assert_eq!(room["hours"], json!(3.25), "{room:?}");
    assert_eq!(room["floor_space_m2"], json!(40.0), "{room:?}");
    // 两个半小时 is two and a half hours; 六个人 counts rowers.
    let (_, room) = call_of(
        &model,
        "周五帮我订一下 erg room，两个半小时，我们六个人",
        &tools,
    );
    assert_eq!(room["hours"], json!(2.5), "{room:?}");
    assert_eq!(room["rowers"], json!(6), "{room:?}");
    // Weekdays are five day names; a fortnight is two weeks.
    let (_, reminder) = call_of(
        &model,
        "remind me to train at 6:30 on weekdays for a fortnight",
        &tools,
    );
    assert_eq!(
        reminder["days"],
        json!(["monday", "tuesday", "wednesday", "thursday", "friday"]),
        "{reminder:?}"
    );
    assert_eq!(reminder["weeks"], json!(2), "{reminder:?}");
    // The request is no name; 王建国 is.
    let (checked, membership) = call_of(&model, "帮我查一下会员资格。王建国，邮编 OX1 4AA", &tools);
    assert_eq!(checked, "check_membership");
    assert_eq!(membership["full_name"], json!("王建国"), "{membership:?}");
    assert_eq!(membership["postcode"], json!("OX1 4AA"), "{membership:?}");
    // "medium" is size m; the postcode is no delivery address.
    let (ordered, kit) = call_of(
        &model,
        "please order me a splash jacket in medium. Sam Reid, OX4 1DD",
        &tools,
    );
    assert_eq!(ordered, "order_kit", "{kit:?}");
    assert_eq!(kit["size"], json!("m"), "{kit:?}");
    assert_eq!(kit["postcode"], json!("OX4 1DD"), "{kit:?}");
    assert_eq!(kit.get("delivery_address"), None, "{kit:?}");
}
