/**
 * skillopt-sleep for OpenCode: when a session goes idle (its answer is done), hand it to the
 * skillopt-sleep task log.
 *
 * A thin shell: it only calls the CLI, `skillopt-sleep log --agent opencode`, with JSON on stdin
 * ({"agent": "opencode", "session_id", "transcript_path": the opencode.db holding it, "cwd",
 * "hook_event_name": "session.idle"}), and never fails or delays the session for it (the CLI
 * returns at once and reads the session in the background). OpenCode has no session-end event
 * in `opencode run`; session.idle fires after every answer, and the log reads only what is new.
 * The CLI is $SKILLOPT_SLEEP_BIN, else the launcher the installer put in its own copy of this
 * plugin (<data>/skillopt-sleep/plugins/opencode/bin/skillopt-sleep: it runs the engine setup
 * recorded, as every other agent's plugin does, also when OpenCode starts without the shell's
 * PATH), else `skillopt-sleep` on PATH.
 *
 * Install: `sh install/install.sh --agents opencode`, or copy this file to
 * ~/.config/opencode/plugins/ (every project) or to <project>/.opencode/plugins/ (one project).
 * It imports nothing outside Node's standard library, so it needs no `npm install`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

function dataHome() {
	// the installer's data directory (setup/layout.py): $XDG_DATA_HOME when absolute
	const xdg = process.env.XDG_DATA_HOME;
	return xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".local", "share");
}

function cli() {
	if (process.env.SKILLOPT_SLEEP_BIN) return process.env.SKILLOPT_SLEEP_BIN;
	const launcher = join(dataHome(), "skillopt-sleep", "plugins", "opencode", "bin", "skillopt-sleep");
	return existsSync(launcher) ? launcher : "skillopt-sleep";
}

function store() {
	// where OpenCode keeps its sessions: $OPENCODE_DB, else <data>/opencode/opencode.db
	const data = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "opencode");
	const named = process.env.OPENCODE_DB;
	if (named && named !== ":memory:") return isAbsolute(named) ? named : join(data, named);
	return join(data, "opencode.db");
}

export const SkilloptSleep = async ({ directory }) => ({
	event: async ({ event }) => {
		if (event.type !== "session.idle") return;
		const payload = {
			agent: "opencode",
			session_id: event.properties?.sessionID ?? "",
			transcript_path: store(),
			cwd: directory ?? process.cwd(),
			hook_event_name: "session.idle",
		};
		if (!payload.session_id) return;
		try {
			spawnSync(cli(), ["log", "--agent", "opencode"], {
				input: JSON.stringify(payload),
				stdio: ["pipe", "ignore", "ignore"],
				timeout: 5000,
			});
		} catch {
			// the session is the user's: a missing or broken CLI never fails it
		}
	},
});
