"""`soundstage` command line: serve, migrate, accounts, keys, credits, buyers, catalog, demo,
errors."""

from __future__ import annotations

import ctypes
import json
import logging.config
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn

if __name__ == "__mp_main__":
    # A process spawned from a command of this module (uvicorn's workers, the realtime
    # slots) imports it first, for seconds under load: its parent stops it (SIGTERM, or
    # the end of its pipe), so Ctrl-C at the terminal, which reaches the whole group, must
    # not end it halfway through with a KeyboardInterrupt's traceback. uvicorn's server
    # installs its own SIGINT handler once it runs, and restores this one after.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

import click

from soundstage.config import ENVIRONMENTS, Settings, get_settings
from soundstage.core import logs, metrics
from soundstage.core.errors import AppError
from soundstage.studios.errors import CatalogInvalid

# The talent search index's listener, registered by importing the talent package, in every
# process this module starts or runs (the catalog commands and the worker write creators):
# tests/workforce/test_talent.py, "the processes that write creators keep the index".
from soundstage.workforce import talent as _talent_index  # noqa: F401

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from soundstage.studios.importer import StudioCounts
    from soundstage.workforce.talent.catalog import TalentCounts

# Each command imports the services it calls, when it runs: `soundstage --help` or `migrate`
# does not load every feature (the module took 2.7 s of CPU to import, now 1.2-1.5 s, most of
# it the talent index above), nor does a process spawned from a command (the realtime slots,
# uvicorn's workers), which imports this module first (as __mp_main__).

json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print JSON instead of a sentence."
)
environment_option = click.option(
    "--environment", type=click.Choice(ENVIRONMENTS), required=True, help="sandbox or production"
)
DEMO_CREDITS = 1_000_000
# uvicorn's supervisor replaces a worker that does not answer its ping in this time. A
# worker answers once it has imported the application (1.3 s on an idle core here, several
# times that on a loaded machine): uvicorn's 5 s would have a busy machine replace workers
# that are only starting, again and again.
WORKER_HEALTHCHECK_SECONDS = 60


@contextmanager
def unit_of_work(*, announce: bool = True) -> Iterator[Session]:
    from soundstage.core.db import Database

    settings = get_settings()
    prepare_database(settings, announce=announce)
    db = Database(settings)
    try:
        with db.session() as session:
            yield session
    except CatalogInvalid:
        raise  # its command lists the problems
    except AppError as exc:
        raise click.ClickException(exc.message) from exc
    finally:
        db.dispose()


def prepare_database(settings: Settings, *, announce: bool = True, logged: bool = False) -> None:
    """Migrate the database and say on stderr which data directory and database this command
    uses (`announce`), with a warning when the database is new, made by this command: one
    run with other settings than the server's would otherwise fill a database of its own
    unseen (its keys refused by the server). A server command, whose logs are configured
    (`logged`), says it in its log, so that `SOUNDSTAGE_LOG_FORMAT=json` keeps every line of
    its stderr one JSON object."""
    from soundstage.core.migrate import upgrade_database

    created = upgrade_database(settings)
    database = database_name(settings)
    say = _log_line if logged else _stderr_line
    if announce:
        say(logging.INFO, f"data directory {settings.data_dir.absolute()}, database {database}")
    if created:
        say(
            logging.WARNING,
            f"new database {database}, created by this command: a server using another data "
            "directory or database does not see what is written here (SOUNDSTAGE_DATA_DIR, "
            "SOUNDSTAGE_DATABASE_URL)",
        )


def _log_line(level: int, message: str) -> None:
    logging.getLogger("soundstage").log(level, message)


def _stderr_line(level: int, message: str) -> None:
    warning = "warning: " if level >= logging.WARNING else ""
    click.echo(f"soundstage: {warning}{message}", err=True)


def database_name(settings: Settings) -> str:
    """The SQLite file, or the database URL without its password."""
    from sqlalchemy.engine import make_url

    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() == "sqlite" and url.database:
        return url.database
    return url.render_as_string(hide_password=True)


def emit(as_json: bool, data: dict[str, Any], sentence: str) -> None:
    click.echo(json.dumps(data, default=str) if as_json else sentence)


@click.group()
def main() -> None:
    """Soundstage: voice, audio, studio and talent API."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--processes", default=1, show_default=True, type=int, help="HTTP server processes.")
@click.option("--no-worker", is_flag=True, help="Do not start the embedded job worker.")
@click.option(
    "--ssl-certfile",
    type=click.Path(exists=True, dir_okay=False),
    help="Serve HTTPS and wss:// with this PEM certificate (chain); uvicorn's own option.",
)
@click.option(
    "--ssl-keyfile",
    type=click.Path(exists=True, dir_okay=False),
    help="The certificate's PEM private key, when --ssl-certfile does not hold it.",
)
def serve(
    host: str,
    port: int,
    processes: int,
    no_worker: bool,
    ssl_certfile: str | None,
    ssl_keyfile: str | None,
) -> None:
    """Migrate the database, then serve the HTTP API (with an embedded job worker)."""
    import uvicorn

    if ssl_keyfile is not None and ssl_certfile is None:
        raise click.BadParameter("needs --ssl-certfile too.", param_hint="--ssl-keyfile")
    # URLs handed out (media) point at this server unless configured otherwise; the app
    # and the embedded worker read it from the environment.
    public_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host  # noqa: S104
    scheme = "https" if ssl_certfile else "http"
    os.environ.setdefault("SOUNDSTAGE_PUBLIC_BASE_URL", f"{scheme}://{public_host}:{port}")
    get_settings.cache_clear()
    settings = get_settings()
    log_config = logs.logging_config(settings.log_format)
    logging.config.dictConfig(log_config)
    prepare_database(settings, logged=True)
    embedded = None
    # uvicorn stops on SIGTERM, then raises it again with the handler found at start: make
    # that an exit that runs the clean-up below (the embedded worker's graceful stop).
    signal.signal(signal.SIGTERM, _exit_on_signal)
    with metrics_directory():
        if not no_worker:
            # A separate process: audio work never runs on the server's event loop. It
            # writes its metrics to the same directory, so this server's /metrics has them.
            embedded = subprocess.Popen(
                [sys.executable, "-m", "soundstage.cli", "worker", "--embedded"],
                preexec_fn=_stop_with_parent,
            )
        try:
            uvicorn.run(
                "soundstage.app:create_served_app",
                factory=True,
                host=host,
                port=port,
                workers=processes,
                timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
                log_config=log_config,
                ssl_certfile=ssl_certfile,
                ssl_keyfile=ssl_keyfile,
                # On SIGTERM open requests and realtime sessions get as long as running jobs
                # do, then are cut (a session's use is still captured): a client that hangs
                # on never keeps a stopping server alive.
                timeout_graceful_shutdown=max(1, round(settings.jobs.shutdown_timeout_seconds)),
                # WebSockets (realtime sessions): a frame over the message bound is refused
                # (1009) from its header, before it is read; pings find clients gone.
                ws_max_size=settings.realtime.max_message_bytes,
                ws_ping_interval=settings.realtime.ping_interval_seconds,
                ws_ping_timeout=settings.realtime.ping_timeout_seconds,
            )
        finally:
            if embedded is not None:
                # The worker's graceful stop: running jobs finish or are re-queued.
                embedded.send_signal(signal.SIGTERM)
                try:
                    embedded.wait(settings.jobs.shutdown_timeout_seconds + 15)
                except subprocess.TimeoutExpired:
                    embedded.kill()


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(0)  # a graceful stop, asked for


def _stop_with_parent() -> None:
    """In the embedded worker: receive SIGTERM (the worker's graceful stop) if `serve` dies
    without its clean-up (kill -9)."""
    pr_set_pdeathsig = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


@contextmanager
def metrics_directory() -> Iterator[None]:
    """The Prometheus multiprocess directory of this process group: the operator's
    PROMETHEUS_MULTIPROC_DIR (emptied by them when the machine's processes start), or a
    private one removed at the end. Children (uvicorn workers, the embedded worker, job
    processes) inherit it."""
    given = metrics.directory()
    path = metrics.use_directory(given)
    try:
        yield
    finally:
        if given is None:
            metrics.remove_private(path)


@main.command()
@click.option("--processes", default=None, type=int, help="Worker processes (default: settings).")
# `serve`'s own worker: serve has said which data directory and database they use.
@click.option("--embedded", is_flag=True, hidden=True)
def worker(processes: int | None, embedded: bool) -> None:
    """Run job workers (a Huey consumer), the sweeper that re-queues orphaned jobs, and the
    webhook delivery loop (threads of the main process, never an audio worker). SIGTERM
    stops gracefully: running jobs get `jobs.shutdown_timeout_seconds`, then are re-queued."""
    from soundstage import app_tasks
    from soundstage.core.db import Database
    from soundstage.engines import libraries
    from soundstage.jobs.worker import Companion, run_worker
    from soundstage.webhooks.loop import DeliveryLoop

    settings = get_settings()
    logs.configure(settings.log_format)
    prepare_database(settings, announce=not embedded, logged=True)
    app_tasks.install()
    libraries.preload()  # before the job processes fork: they share them
    metrics.set_enabled(settings.metrics.enabled)
    db = Database(settings)
    try:
        with metrics_directory():
            companions: list[Companion] = [DeliveryLoop(db, settings)]
            if settings.metrics.enabled and settings.metrics.worker_port:
                companions.append(
                    metrics.ExpositionServer(
                        settings.metrics.worker_host,
                        settings.metrics.worker_port,
                        settings.metrics.bearer_token,
                    )
                )
            run_worker(settings, processes or settings.jobs.worker_processes, companions)
    finally:
        db.dispose()


@main.command()
@click.option(
    "--uri",
    default="tcp://127.0.0.1:10300",
    show_default=True,
    help="Where to listen: tcp://HOST:PORT (tcp://0.0.0.0:10300 for other machines) or "
    "unix:///path/to/socket.",
)
@click.option(
    "--api-key",
    envvar="SOUNDSTAGE_WYOMING_API_KEY",
    show_envvar=True,
    help="The key every request runs as: its account, in its environment (sk_sandbox_… or "
    "sk_live_…).",
)
@click.option("--no-worker", is_flag=True, help="Do not start the embedded job worker.")
def wyoming(uri: str, api_key: str | None, no_worker: bool) -> None:
    """Serve Home Assistant's Wyoming protocol: speech-to-text and every catalog voice, as
    the key's account, through the HTTP API's services (credits, rate limits, bounds, jobs),
    with an embedded job worker as `serve` has (docs/home-assistant.md)."""
    import asyncio

    from soundstage import app_tasks
    from soundstage.wyoming_server import server as wyoming_server

    if not api_key:
        raise click.UsageError(
            "an API key is required: --api-key sk_… or SOUNDSTAGE_WYOMING_API_KEY (every "
            "request runs as its account; `soundstage keys create` makes one)."
        )
    try:
        wyoming_server.check_uri(uri)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--uri") from exc
    settings = get_settings()
    logs.configure(settings.log_format)
    prepare_database(settings, logged=True)
    app_tasks.install()
    metrics.set_enabled(settings.metrics.enabled)
    try:
        principal = wyoming_server.check_key(settings, api_key)
    except AppError as exc:
        raise click.ClickException(f"the API key is refused: {exc.message}") from exc
    click.echo(
        f"soundstage: Wyoming server on {uri}, as account {principal.account_id} "
        f"({principal.environment})",
        err=True,
    )
    with metrics_directory():
        # As `serve`'s: audio work never runs in this process.
        embedded = None if no_worker else _start_embedded_worker()
        try:
            asyncio.run(wyoming_server.serve(settings, uri, api_key))
        except KeyboardInterrupt:
            pass  # Ctrl-C: a stop asked for (SIGTERM stops the server's loop itself)
        finally:
            if embedded is not None:
                _stop_embedded_worker(embedded, settings)


def _start_embedded_worker() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "worker", "--embedded"],
        preexec_fn=_stop_with_parent,
    )


def _stop_embedded_worker(embedded: subprocess.Popen[bytes], settings: Settings) -> None:
    """The worker's graceful stop: running jobs finish or are re-queued."""
    embedded.send_signal(signal.SIGTERM)
    try:
        embedded.wait(settings.jobs.shutdown_timeout_seconds + 15)
    except subprocess.TimeoutExpired:
        embedded.kill()


@main.command("mcp")
@click.option(
    "--api-key",
    envvar="SOUNDSTAGE_MCP_API_KEY",
    show_envvar=True,
    help="The key every call runs as: its account, in its environment (sk_sandbox_… or sk_live_…).",
)
@click.option("--no-worker", is_flag=True, help="Do not start the embedded job worker.")
def mcp_command(api_key: str | None, no_worker: bool) -> None:
    """Serve the Model Context Protocol on stdin/stdout (for an assistant that starts it): the
    tools and resources of /mcp, as the key's account, through the HTTP API's services
    (credits, rate limits, bounds, jobs), with an embedded job worker as `serve` has
    (docs/mcp.md). Media URLs point at SOUNDSTAGE_PUBLIC_BASE_URL, the server of the same
    data directory and database that serves them."""
    if not api_key:
        raise click.UsageError(
            "an API key is required: --api-key sk_… or SOUNDSTAGE_MCP_API_KEY (every call "
            "runs as its account; `soundstage keys create` makes one)."
        )
    from soundstage import app_tasks
    from soundstage.core.db import Database
    from soundstage.mcp_server import stdio

    settings = get_settings()
    logs.configure(settings.log_format)
    prepare_database(settings, logged=True)
    app_tasks.install()
    db = Database(settings)
    try:
        principal = stdio.check_key(db, settings, api_key)
    except AppError as exc:
        db.dispose()
        raise click.ClickException(f"the API key is refused: {exc.message}") from exc
    click.echo(
        f"soundstage: MCP server on stdio, as account {principal.account_id} "
        f"({principal.environment})",
        err=True,
    )
    signal.signal(signal.SIGTERM, _exit_on_signal)
    with metrics_directory():
        embedded = None
        if not no_worker:
            # As `serve`'s, but never on stdout (the protocol's stream) nor reading stdin.
            embedded = subprocess.Popen(
                [sys.executable, "-m", "soundstage.cli", "worker", "--embedded"],
                stdin=subprocess.DEVNULL,
                stdout=sys.stderr.fileno(),
                preexec_fn=_stop_with_parent,
            )
        try:
            stdio.serve(db, settings, api_key)
        except KeyboardInterrupt:
            pass  # Ctrl-C: a stop asked for
        finally:
            if embedded is not None:
                _stop_embedded_worker(embedded, settings)
            db.dispose()


@main.command()
def migrate() -> None:
    """Apply database migrations (serve does this too)."""
    prepare_database(get_settings())
    click.echo("database is up to date")


@main.group("accounts")
def accounts_group() -> None:
    """Customer accounts."""


@accounts_group.command("create")
@click.option("--name", required=True)
@json_option
def accounts_create(name: str, as_json: bool) -> None:
    from soundstage.accounts import service as accounts

    with unit_of_work() as session:
        account = accounts.create_account(session, name)
    emit(
        as_json,
        {"account_id": account.id, "name": account.name},
        f"created account {account.id} ({account.name})",
    )


@main.group("keys")
def keys_group() -> None:
    """API keys (shown once)."""


@keys_group.command("create")
@click.option("--account", "account_id", required=True)
@environment_option
@json_option
def keys_create(account_id: str, environment: str, as_json: bool) -> None:
    from soundstage.accounts import service as accounts

    with unit_of_work() as session:
        issued = accounts.create_key(session, (account_id, environment))
    emit(
        as_json,
        {
            "key_id": issued.key.id,
            "account_id": account_id,
            "environment": environment,
            "key": issued.secret,
        },
        f"created {environment} key {issued.key.id}: {issued.secret}  (shown once; store it now)",
    )


@keys_group.command("revoke")
@click.argument("key_id")
@json_option
def keys_revoke(key_id: str, as_json: bool) -> None:
    from soundstage.accounts import service as accounts

    with unit_of_work() as session:
        key = accounts.revoke_key(session, key_id)
    emit(as_json, {"key_id": key.id, "revoked_at": key.revoked_at}, f"revoked key {key.id}")


@main.group("credits")
def credits_group() -> None:
    """Credit balances."""


@credits_group.command("grant")
@click.option("--account", "account_id", required=True)
@environment_option
@click.option("--amount", required=True, type=click.IntRange(min=1))
@json_option
def credits_grant(account_id: str, environment: str, amount: int, as_json: bool) -> None:
    from soundstage.accounts import service as accounts
    from soundstage.credits import service as credits

    with unit_of_work() as session:
        accounts.get_account(session, account_id)
        transaction = credits.grant(session, (account_id, environment), amount, "operator grant")
        balance = credits.get_balance(session, (account_id, environment))
    emit(
        as_json,
        {
            "transaction_id": transaction.id,
            "account_id": account_id,
            "environment": environment,
            "amount": amount,
            "balance": balance.available,
        },
        f"granted {amount} credits to {account_id} ({environment}); balance {balance.available}",
    )


@main.group("buyers")
def buyers_group() -> None:
    """Buyer verification."""


@buyers_group.command("verify")
@click.option("--account", "account_id", required=True)
@environment_option
@json_option
def buyers_verify(account_id: str, environment: str, as_json: bool) -> None:
    from soundstage.accounts import service as accounts
    from soundstage.accounts import verification

    with unit_of_work() as session:
        accounts.get_account(session, account_id)
        out = verification.decide(
            session, (account_id, environment), approve=True, require_pending=False
        )
    emit(
        as_json,
        {"account_id": account_id, "environment": environment, "status": out.status},
        f"buyer {account_id} ({environment}) is {out.status}",
    )


@main.group("catalog")
def catalog_group() -> None:
    """The voice and studio catalogs: platform data, the same for every account and
    environment."""


@catalog_group.command("load-demo")
@json_option
def catalog_load_demo(as_json: bool) -> None:
    """Load the demo voices of the engines installed here, each with its creator, then the
    demo talent catalog (full profiles for those creators and several hundred more) and the
    demo studios. Running it again creates or updates only what changed; ids never change."""
    from soundstage.studios.demo import load_demo_studios
    from soundstage.voices.demo import load_demo_catalog
    from soundstage.workforce.talent.demo import load_demo_talent

    with unit_of_work() as session:
        counts = load_demo_catalog(session)
        talent_counts = load_demo_talent(session)
        studios = load_demo_studios(session)
    emit(
        as_json,
        asdict(counts)
        | {f"talent_{k}": v for k, v in asdict(talent_counts).items()}
        | asdict(studios),
        f"creators: {counts.creators_created} created, {counts.creators_updated} updated, "
        f"{counts.creators_unchanged} unchanged; voices: {counts.voices_created} created, "
        f"{counts.voices_updated} updated, {counts.voices_unchanged} unchanged; "
        f"talent: {_talent_sentence(talent_counts)}; " + _studio_counts(studios),
    )


def _talent_sentence(counts: TalentCounts) -> str:
    return f"{counts.created} created, {counts.updated} updated, {counts.unchanged} unchanged"


@catalog_group.command("import-talent")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
def catalog_import_talent(file: Path, as_json: bool) -> None:
    """Create or update talent profiles from a JSON file ({"talent": [...]}, format in the
    docs/workforce.md), by creator id. The whole file is checked first: any invalid profile, unknown
    voice or unknown account imports nothing."""
    from soundstage.workforce.talent import catalog as talent_catalog

    try:  # parsed before the transaction: no lock is held while a large file is read
        profiles = talent_catalog.parse_file(file)
    except AppError as exc:
        raise click.ClickException(exc.message) from exc
    with unit_of_work() as session:
        counts = talent_catalog.import_profiles(session, profiles)
    emit(as_json, asdict(counts), f"talent: {_talent_sentence(counts)}")


@catalog_group.command("set-owner")
@click.option("--creator", "creator_id", required=True)
@click.option("--account", "account_id", required=True)
@json_option
def catalog_set_owner(creator_id: str, account_id: str, as_json: bool) -> None:
    """Let an account speak for a creator: its keys see and answer the creator's license
    requests (POST /api/v1/workforce/talent/licenses/{id}/accept or /decline)."""
    from soundstage.accounts import service as accounts
    from soundstage.workforce.talent import service as talent

    with unit_of_work() as session:
        accounts.get_account(session, account_id)
        creator = talent.set_owner(session, creator_id, account_id)
    emit(
        as_json,
        {"creator_id": creator.id, "account_id": account_id},
        f"{account_id} now speaks for {creator.id} ({creator.display_name})",
    )


@catalog_group.command("import-studios")
@click.argument("file", type=click.File("rb"))
@json_option
def catalog_import_studios(file: BinaryIO, as_json: bool) -> None:
    """Create or replace the studios of a JSON file (`{"studios": [...]}`, see docs/studios.md),
    all or nothing: any problem is listed and nothing is written."""
    from soundstage.studios.importer import parse_catalog, upsert_studios

    try:
        specs = parse_catalog(file.read())
        with unit_of_work() as session:
            counts = upsert_studios(session, specs)
    except CatalogInvalid as exc:
        _fail_import(exc)
    emit(as_json, asdict(counts), _studio_counts(counts))


def _studio_counts(counts: StudioCounts) -> str:
    return (
        f"studios: {counts.studios_created} created, {counts.studios_updated} updated, "
        f"{counts.studios_unchanged} unchanged"
    )


def _fail_import(error: CatalogInvalid) -> NoReturn:
    from soundstage.studios.importer import MAX_PROBLEMS_SHOWN

    shown = error.problems[:MAX_PROBLEMS_SHOWN]
    lines = [error.message, *(f"  {problem}" for problem in shown)]
    if len(error.problems) > len(shown):
        lines.append(f"  ... and {len(error.problems) - len(shown)} more")
    lines.append("Nothing was imported.")
    raise click.ClickException("\n".join(lines))


@main.command("errors")
@click.option(
    "--markdown", "as_markdown", is_flag=True, help="Print the docs' table (the default)."
)
@json_option
def errors_command(as_markdown: bool, as_json: bool) -> None:
    """Every error code the API can answer: status, type, code and meaning (docs/errors.md's
    table, generated from the AppError classes that declare them)."""
    from soundstage.error_catalog import all_codes, markdown_table

    if as_json and as_markdown:
        raise click.UsageError("--markdown and --json exclude each other.")
    codes = all_codes()
    if as_json:
        fields = ("status", "type", "code", "meaning")
        click.echo(json.dumps([{k: getattr(row, k) for k in fields} for row in codes], indent=2))
    else:
        click.echo(markdown_table(codes), nl=False)


@main.command()
@json_option
def demo(as_json: bool) -> None:
    """Create (once) a demo account with a funded sandbox key, and print the key."""
    from soundstage.accounts import service as accounts
    from soundstage.credits import service as credits

    settings = get_settings()
    path = settings.data_dir / "demo-key.json"
    if path.exists():
        saved = json.loads(path.read_text())
        with unit_of_work() as session:
            if _key_usable(session, saved["key"]):
                emit(as_json, saved, f"sandbox key: {saved['key']}")
                return
    with unit_of_work(announce=not path.exists()) as session:
        account = accounts.create_account(session, "Demo")
        issued = accounts.create_key(session, (account.id, "sandbox"))
        credits.grant(session, (account.id, "sandbox"), DEMO_CREDITS, "demo credits")
    saved = {"account_id": account.id, "key_id": issued.key.id, "key": issued.secret}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(json.dumps(saved))
    emit(as_json, saved, f"sandbox key: {issued.secret}")


def _key_usable(session: Session, secret: str) -> bool:
    from soundstage.accounts import service as accounts

    try:
        accounts.authenticate(session, f"Bearer {secret}")
    except AppError:
        return False
    return True


def run(command: Callable[..., Any] = main) -> None:
    command(prog_name="soundstage")


if __name__ == "__main__":
    sys.exit(main())
