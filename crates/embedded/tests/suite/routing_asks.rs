//! Requests that ask without an imperative (an absence told, a thing
//! asked to be sent, a wish on a household's behalf, a record asked after
//! by its booking number, whether something was done) and an address
//! read whole.

use chrono::NaiveDate;
use riverse_embedded::Route;
use riverse_tool::ToolManifest;
use serde_json::json;

use super::model;
use super::routing::call_of;

fn station_tools() -> Vec<ToolManifest> {
    serde_json::from_value(json!([{
        "name": "report_absence",
        "description": "Tells the coxswain a crew member will miss a training night.",
        "parameters": {
            "member_name": "full name of the crew member",
            "date": "date of the training night, YYYY-MM-DD"
        }
    }, {
        "name": "get_training_rota",
        "description": "Returns the training rota for a month.",
        "parameters": {"month": "optional; month, YYYY-MM"}
    }, {
        "name": "book_room",
        "description": "Books the station's meeting room.",
        "parameters": {
            "date": "YYYY-MM-DD",
            "start_time": "start time, HH:MM (24h)",
            "end_time": "end time, HH:MM (24h)",
            "purpose": "what the room is for"
        }
    }, {
        "name": "join_crew",
        "description": "Signs a new volunteer up to the station's shore crew.",
        "parameters": {
            "full_name": "volunteer's full name",
            "address": "full home address including postcode"
        }
    }, {
        "name": "get_booking",
        "description": "Looks up a room booking by its reference and returns its status.",
        "parameters": {"booking_ref": "booking reference, like MR-1234"}
    }]))
    .unwrap()
}

#[test]
fn absences_sendings_wishes_and_booking_numbers() {
    let tools = station_tools();
    let saturday = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
    let model = model().clone().on_day(saturday);
    // Saying one will miss a night asks for the absence to be told; the
    // name signed at the end is no verb.
    let (told, absence) = call_of(
        &model,
        "Sorry, I will miss the training night on Thursday. Mark Dunn",
        &tools,
    );
    assert_eq!(told, "report_absence", "{absence:?}");
    assert_eq!(absence["date"], json!("2026-12-10"), "{absence:?}");
    // Asking to be sent the rota asks to read it.
    let (sent, _) = call_of(&model, "send me the training rota", &tools);
    assert_eq!(sent, "get_training_rota");
    // "we would like" asks; "6-9pm" is an evening span.
    let (booked, room) = call_of(
        &model,
        "we would like the meeting room on friday 6-9pm for the fundraiser committee",
        &tools,
    );
    assert_eq!(booked, "book_room", "{room:?}");
    assert_eq!(room["start_time"], json!("18:00"), "{room:?}");
    assert_eq!(room["end_time"], json!("21:00"), "{room:?}");
    // 预约号 names the booking asked after, not a new booking.
    let (looked_up, booking) = call_of(&model, "请问预约号 MR-2231 现在什么状态？", &tools);
    assert_eq!(looked_up, "get_booking");
    assert_eq!(booking["booking_ref"], json!("MR-2231"), "{booking:?}");
    // Whether one booked asks nothing of the tool that books.
    let whether = model
        .route("帮我查一下我有没有预约会议室，我叫王磊", &tools[2..3])
        .unwrap();
    assert_eq!(whether, Route::None);
    // An address runs from its house number to its postcode.
    let (joined, crew) = call_of(
        &model,
        "sign me up for the shore crew please, Jo Bell, 14 Mill Lane, Didcot OX11 7AB",
        &tools,
    );
    assert_eq!(joined, "join_crew", "{crew:?}");
    assert_eq!(
        crew["address"],
        json!("14 Mill Lane, Didcot OX11 7AB"),
        "{crew:?}"
    );
}
