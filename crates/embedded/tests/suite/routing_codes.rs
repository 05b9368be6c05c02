//! Codes and times written as people write them: a code shaped like a
//! parameter's example ("BC-884120" for "e.g. BC-123456") names that
//! tool's record, "9.45am" and "this Friday at 11" are clock times, and an
//! email address goes to the parameter for one.

use chrono::NaiveDate;
use riverse_embedded::Route;
use riverse_tool::ToolManifest;
use serde_json::json;

use super::model;
use super::routing::call_of;

fn courier_tools() -> Vec<ToolManifest> {
    serde_json::from_value(json!([{
        "name": "track_delivery",
        "description": "Returns where a delivery is and when it is expected.",
        "parameters": {"reference": "delivery reference, e.g. BC-123456"}
    }, {
        "name": "book_pickup",
        "description": "Books a courier to collect a package.",
        "parameters": {
            "address": "pickup street address",
            "date": "YYYY-MM-DD",
            "time": "pickup time, HH:MM",
            "size": "one of: envelope, small_parcel, large_parcel"
        }
    }, {
        "name": "send_receipt",
        "description": "Emails the receipt of a delivery.",
        "parameters": {
            "reference": "delivery reference, e.g. BC-123456",
            "receipt_email": "email address the receipt is sent to",
            "note": "optional; a note printed on the receipt"
        }
    }, {
        "name": "cancel_delivery",
        "description": "Cancels a delivery that has not been collected yet.",
        "parameters": {
            "reference": "delivery reference, format BC-NNNNNN",
            "reason": "optional; why it is cancelled"
        }
    }, {
        "name": "report_damage",
        "description": "Reports a package that arrived damaged.",
        "parameters": {
            "reference": "delivery reference",
            "damage": "one of: crushed, wet, torn_packaging, missing_contents"
        }
    }]))
    .unwrap()
}

#[test]
fn codes_times_and_addresses_are_read_as_the_manifest_writes_them() {
    let tools = courier_tools();
    let monday = NaiveDate::from_ymd_opt(2026, 12, 7).unwrap();
    let model = model().clone().on_day(monday);
    // A question naming a delivery by its code alone asks after it.
    let message = "Has BC-884120 been picked up yet? it's been ages";
    assert_eq!(
        model.route(message, &tools).unwrap(),
        Route::Call {
            tool: "track_delivery".into(),
            params: json!({"reference": "BC-884120"})
                .as_object()
                .unwrap()
                .clone(),
        }
    );
    // "9.45am" and "Friday at 11" are times.
    let (booked, pickup) = call_of(
        &model,
        "pick up an envelope from 12 Quay Street tomorrow 9.45am please",
        &tools,
    );
    assert_eq!(booked, "book_pickup", "{pickup:?}");
    assert_eq!(pickup["time"], json!("09:45"), "{pickup:?}");
    assert_eq!(pickup["date"], json!("2026-12-08"), "{pickup:?}");
    let (_, pickup) = call_of(
        &model,
        "book a collection at 12 Quay Street this Friday at 11, it's a small parcel",
        &tools,
    );
    assert_eq!(pickup["time"], json!("11:00"), "{pickup:?}");
    assert_eq!(pickup["size"], json!("small_parcel"), "{pickup:?}");
    // The address is the receipt's, not a note.
    let (sent, receipt) = call_of(&model, "把BC-884120的收据发到 ana.ruiz@example.com", &tools);
    assert_eq!(sent, "send_receipt", "{receipt:?}");
    assert_eq!(
        receipt["receipt_email"],
        json!("ana.ruiz@example.com"),
        "{receipt:?}"
    );
    assert_eq!(receipt["reference"], json!("BC-884120"), "{receipt:?}");
}
