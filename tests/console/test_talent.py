"""Page 8, Talent: the buyer-verification gate and its sandbox way through, discover and search
with filters, a creator's playable demos and rate card, a license requested with its quote, its
lifecycle actions, and licensed media; each checked against what the API then says. In
production the gate has no sandbox button: a reviewer (the operator's CLI) approves.

The tests share one server (one account): the first sees the sandbox gate and verifies through
the console; the others verify through the API if they run alone."""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.support.console import ConsolePage, ConsoleServer

PLAYED = """async (audio) => {
  if (audio.readyState < 1) {
    await new Promise((resolve, reject) => {
      audio.addEventListener("loadedmetadata", resolve, { once: true });
      const failed = () => reject(new Error("audio error " + audio.error?.code));
      audio.addEventListener("error", failed, { once: true });
    });
  }
  const duration = audio.duration;
  await audio.play();
  await new Promise((resolve) => {
    const check = () => (audio.currentTime > 0 || audio.ended) && resolve(null);
    audio.addEventListener("timeupdate", check);
    audio.addEventListener("ended", check);
    check();
  });
  audio.pause();
  return { duration, currentTime: audio.currentTime, ended: audio.ended };
}"""


def _ok(server: ConsoleServer, method: str, path: str, **kwargs: Any) -> Any:
    response = server.api(method, path, **kwargs)
    assert response.status_code == 200, response.text
    return response.json()


def _verify_by_api(server: ConsoleServer) -> None:
    status = _ok(server, "GET", "/api/v1/buyers/verification")["status"]
    if status == "verified":
        return
    if status != "pending":
        _ok(
            server,
            "POST",
            "/api/v1/buyers/verification",
            json={
                "legal_name": "Test Buyer Ltd",
                "country": "GB",
                "contact_email": "buyer@example.com",
            },
        )
    _ok(server, "POST", "/api/v1/sandbox/buyers/verification/approve")


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _open(console: ConsolePage, route: str) -> Page:
    console.sign_in()
    return console.open(route)


def _expect_creators(page: Page, creator_ids: list[str]) -> None:
    rows = page.locator("tr[data-creator]")
    expect(rows).to_have_count(len(creator_ids))
    for n, creator_id in enumerate(creator_ids):
        expect(rows.nth(n)).to_have_attribute("data-creator", creator_id)


def _section(page: Page, title: str) -> Locator:
    return page.locator("section", has=page.get_by_role("heading", name=title, exact=True))


def _row(page: Page, license_id: str) -> Locator:
    return page.locator(f'tr[data-license="{license_id}"]')


def _buttons(row: Locator) -> list[str]:
    return [b.strip() for b in row.get_by_role("button").all_inner_texts()]


def test_gate_then_sandbox_verification_then_filters_match_the_api(console: ConsolePage) -> None:
    server = console.server
    assert server.api("GET", "/api/v1/workforce/discover").json()["error"]["code"] == (
        "buyer_not_verified"
    )
    console.allow_error("403")
    page = _open(console, "/talent")
    expect(page.get_by_role("heading", name="Buyer verification required")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("buyer_not_verified")
    expect(page.get_by_text("Status in sandbox:")).to_contain_text("unverified")

    page.get_by_label("Legal name").fill("Console Buyer Ltd")
    page.get_by_label("Country (ISO code)").fill("GB")
    page.get_by_label("Contact email").fill("buyer@example.com")
    page.get_by_role("button", name="Submit for verification").click()
    expect(page.get_by_text("Status in sandbox:")).to_contain_text("pending")
    expect(page.get_by_role("alert")).to_contain_text("(status: pending)")
    assert _ok(server, "GET", "/api/v1/buyers/verification")["status"] == "pending"
    console.screenshot("08-talent-gate")
    page.get_by_role("button", name="Approve verification (sandbox)").click()
    expect(page.get_by_role("heading", name="Results")).to_be_visible()
    verification = _ok(server, "GET", "/api/v1/buyers/verification")
    assert (verification["status"], verification["legal_name"]) == ("verified", "Console Buyer Ltd")

    # No filter: discover, newest first, as the API lists it.
    everyone = _ok(server, "GET", "/api/v1/workforce/discover", params={"limit": 20})
    _expect_creators(page, [c["creator_id"] for c in everyone["data"]])

    # Discover's filters.
    page.get_by_label("Genre").select_option("audiobook")
    page.get_by_label("Language (BCP-47)").fill("en")
    page.get_by_label("Verified creators only").check()
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_text("GET /api/v1/workforce/discover?")).to_contain_text(
        "genre=audiobook&language=en&verified=true"
    )
    found = _ok(
        server,
        "GET",
        "/api/v1/workforce/discover",
        params={"genre": "audiobook", "language": "en", "verified": "true", "limit": 20},
    )
    assert found["data"], "the demo catalog has verified English audiobook talent"
    _expect_creators(page, [c["creator_id"] for c in found["data"]])
    page.get_by_role("link", name=found["data"][0]["display_name"]).first.wait_for()

    # Search's: free text and attributes.
    page.get_by_role("button", name="Clear filters").click()
    page.get_by_label("Search text").fill("narrator")
    page.get_by_label("Accent").fill("Scottish")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_text("GET /api/v1/workforce/search?")).to_contain_text(
        "q=narrator&accent=Scottish"
    )
    hits = _ok(
        server,
        "GET",
        "/api/v1/workforce/search",
        params={"q": "narrator", "accent": "Scottish", "limit": 20},
    )
    assert hits["data"], "the demo catalog has Scottish narrators"
    _expect_creators(page, [c["creator_id"] for c in hits["data"]])
    page.get_by_role("button", name="Clear filters").click()
    page.get_by_label("Age range").select_option("senior")
    page.get_by_label("Gender").select_option("female")
    page.get_by_role("button", name="Search", exact=True).click()
    seniors = _ok(
        server,
        "GET",
        "/api/v1/workforce/search",
        params={"gender": "female", "age_range": "senior", "limit": 20},
    )
    _expect_creators(page, [c["creator_id"] for c in seniors["data"]])
    if seniors["has_more"]:
        page.get_by_role("button", name="Load more").click()
        more = _ok(
            server,
            "GET",
            "/api/v1/workforce/search",
            params={
                "gender": "female",
                "age_range": "senior",
                "limit": 20,
                "starting_after": seniors["data"][-1]["creator_id"],
            },
        )
        _expect_creators(page, [c["creator_id"] for c in seniors["data"] + more["data"]])
    console.screenshot("08-talent")


def test_in_production_the_gate_waits_for_a_reviewer(console: ConsolePage) -> None:
    server = console.server
    created = server.cli(
        "keys", "create", "--account", server.account_id, "--environment", "production", "--json"
    )
    live = json.loads(created)["key"]
    console.allow_error("403")
    page = console.sign_in(live)
    expect(page.get_by_label("Environment")).to_have_value("production")
    page = console.open("/talent?tab=licenses")
    expect(page.get_by_role("alert")).to_contain_text("buyer_not_verified")
    expect(page.get_by_text("Status in production:")).to_contain_text("unverified")
    page.get_by_label("Legal name").fill("Live Buyer Ltd")
    page.get_by_label("Country (ISO code)").fill("FR")
    page.get_by_label("Contact email").fill("live@example.com")
    page.get_by_role("button", name="Submit for verification").click()
    expect(page.get_by_text("Status in production:")).to_contain_text("pending")
    expect(page.get_by_text("under review")).to_be_visible()
    expect(page.get_by_role("button", name="Approve verification (sandbox)")).to_have_count(0)
    status = _ok(server, "GET", "/api/v1/buyers/verification", key=live)
    assert (status["environment"], status["status"]) == ("production", "pending")
    # The reviewer (the operator's CLI) approves; the page then lists the live licenses (none).
    server.cli("buyers", "verify", "--account", server.account_id, "--environment", "production")
    page.reload()
    expect(page.get_by_text("No licenses yet.")).to_be_visible()
    assert _ok(server, "GET", "/api/v1/workforce/licenses", key=live)["data"] == []


def _creator_with_demos(server: ConsoleServer) -> dict[str, Any]:
    found = _ok(
        server,
        "GET",
        "/api/v1/workforce/discover",
        params={"verified": "true", "genre": "audiobook", "language": "en", "limit": 100},
    )
    for creator in found["data"]:
        if creator["demos"] and len(creator["rate_card"]) >= 2 and creator["voice_ids"]:
            return dict(creator)
    raise AssertionError("no verified creator with demos and two rates in the demo catalog")


def test_a_creators_demo_plays_and_its_rate_card_shows(console: ConsolePage) -> None:
    server = console.server
    _verify_by_api(server)
    creator = _creator_with_demos(server)
    page = _open(console, f"/talent/{creator['creator_id']}")
    expect(page.get_by_role("heading", level=1)).to_contain_text(creator["display_name"])
    rates = _section(page, "Rate card").get_by_role("row")
    expect(rates).to_have_count(len(creator["rate_card"]) + 1)
    for rate in creator["rate_card"]:
        expect(_section(page, "Rate card")).to_contain_text(_money(rate["base_fee_cents"]))
    demo = creator["demos"][0]
    audio = page.get_by_label(f"Demo: {demo['title']}")
    expect(audio).to_have_attribute("src", re.compile(re.escape(demo["url"].split("?")[0])))
    played = audio.element_handle().evaluate(PLAYED)
    assert played["duration"] > 0
    assert played["currentTime"] > 0 or played["ended"]


def test_license_request_quote_lifecycle_and_licensed_media(console: ConsolePage) -> None:
    server = console.server
    _verify_by_api(server)
    creator = _creator_with_demos(server)
    creator_id = creator["creator_id"]
    usage = creator["rate_card"][1]["usage_type"]
    page = _open(console, f"/talent/{creator_id}")
    form = _section(page, "Request a license")
    form.get_by_label("Usage").select_option(usage)
    form.get_by_label("Territory").fill("us, ca")
    form.get_by_label("Term (months)").select_option("24")
    form.get_by_role("button", name="Request license").click()
    expect(form.get_by_role("status")).to_contain_text("requested")

    listed = _ok(server, "GET", "/api/v1/workforce/licenses", params={"creator_id": creator_id})
    assert len(listed["data"]) == 1
    license_ = listed["data"][0]
    assert (license_["usage_type"], license_["territory"], license_["duration_months"]) == (
        usage,
        "CA,US",
        24,
    )
    assert license_["status"] == "requested"
    fee = int((Decimal(license_["amount_cents"]) / 100).quantize(Decimal(1), ROUND_HALF_UP))
    assert license_["success_fee_cents"] == fee
    assert license_["total_cents"] == license_["amount_cents"] + fee
    quote = form.get_by_label(f"Quote of {license_['id']}")
    expect(quote.locator('[data-field="amount_cents"]')).to_have_text(
        _money(license_["amount_cents"])
    )
    expect(quote.locator('[data-field="success_fee_cents"]')).to_have_text(_money(fee))
    expect(quote.locator('[data-field="total_cents"]')).to_have_text(
        _money(license_["total_cents"])
    )
    # The creator's licenses list it with the API's amounts and the requested state's actions.
    row = _row(page, license_["id"])
    expect(row).to_contain_text(_money(license_["total_cents"]))
    expect(row.get_by_role("button")).to_have_count(3)
    assert _buttons(row) == ["Accept (sandbox)", "Decline (sandbox)", "Cancel"]
    console.screenshot("08-creator")

    # The sandbox creator accepts; then the buyer completes.
    row.get_by_role("button", name="Accept (sandbox)").click()
    expect(row.get_by_role("button", name="Complete")).to_be_visible()
    assert _ok(server, "GET", f"/api/v1/workforce/licenses/{license_['id']}")["status"] == (
        "accepted"
    )
    assert _buttons(row) == ["Complete", "Cancel"]
    row.get_by_role("button", name="Complete").click()
    expect(row).to_contain_text("completed")
    done = _ok(server, "GET", f"/api/v1/workforce/licenses/{license_['id']}")
    assert done["status"] == "completed"
    assert done["ends_at"] is not None
    expect(row.get_by_role("button")).to_have_count(0)

    # More licenses, of another creator too: one to cancel from the Licenses tab, one the
    # sandbox creator declines there, one the sandbox creator accepted (through the API).
    other = next(
        c
        for c in _ok(server, "GET", "/api/v1/workforce/discover", params={"limit": 20})["data"]
        if c["rate_card"] and c["creator_id"] != creator_id
    )

    def request(who: dict[str, Any], territory: str, months: int) -> dict[str, Any]:
        body = {
            "creator_id": who["creator_id"],
            "usage_type": who["rate_card"][0]["usage_type"],
            "territory": territory,
            "duration_months": months,
        }
        return dict(_ok(server, "POST", "/api/v1/workforce/licensing", json=body))

    second = request(creator, "worldwide", 12)
    declined = request(other, "GB", 6)
    accepted = request(other, "FR,DE,ES", 36)
    _ok(server, "POST", f"/api/v1/sandbox/workforce/licenses/{accepted['id']}/accept")
    page = console.open("/talent?tab=licenses")
    tab = page.get_by_role("link", name="Licenses", exact=True)
    expect(tab).to_have_attribute("aria-current", "page")
    row = _row(page, second["id"])
    expect(row).to_contain_text("requested")
    expect(row).to_contain_text(_money(second["total_cents"]))
    row.get_by_role("button", name="Cancel").click()
    expect(row).to_contain_text("cancelled")
    assert _ok(server, "GET", f"/api/v1/workforce/licenses/{second['id']}")["status"] == (
        "cancelled"
    )
    expect(row.get_by_role("button")).to_have_count(0)
    row = _row(page, declined["id"])
    expect(row.get_by_role("link", name=other["display_name"])).to_be_visible()
    row.get_by_role("button", name="Decline (sandbox)").click()
    expect(row).to_contain_text("declined")
    assert _ok(server, "GET", f"/api/v1/workforce/licenses/{declined['id']}")["status"] == (
        "declined"
    )
    row = _row(page, accepted["id"])
    expect(row).to_contain_text("accepted")
    assert _buttons(row) == ["Complete", "Cancel"]
    page.get_by_label("Status").select_option("completed")
    expect(page.locator("tr[data-license]")).to_have_count(1)
    expect(_row(page, license_["id"])).to_be_visible()
    page.get_by_label("Status").select_option("")
    expect(page.locator("tr[data-license]")).to_have_count(4)
    request(other, "US", 3)  # one still requested, for the picture
    page.get_by_role("button", name="Refresh").click()
    expect(page.locator("tr[data-license]")).to_have_count(5)
    console.screenshot("08-licenses")

    # The completed license's media: listed as the API lists them, and playable.
    media = _ok(server, "GET", "/api/v1/workforce/media")["data"]
    assert media
    assert {m["license"]["license_id"] for m in media} == {license_["id"]}
    page.get_by_role("link", name="Licensed media").click()
    items = page.locator("li[data-media]")
    expect(items).to_have_count(len(media))
    expect(items.first).to_contain_text(creator["display_name"])
    first = media[0]
    audio = page.get_by_label(f"Licensed recording: {first['title']}")
    played = audio.element_handle().evaluate(PLAYED)
    assert played["duration"] > 0
    console.screenshot("08-licensed-media")
