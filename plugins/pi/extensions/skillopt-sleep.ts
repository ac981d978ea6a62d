/**
 * skillopt-sleep for pi: when a session ends, hand it to the skillopt-sleep task log.
 *
 * A thin shell: it only calls the CLI, `skillopt-sleep log`, with the hook JSON on stdin
 * ({"agent": "pi", "session_id", "transcript_path", "cwd", "hook_event_name": "SessionEnd",
 * "reason"}), and never fails or delays the session for it (the CLI returns at once and reads
 * the session in the background). The CLI is $SKILLOPT_SLEEP_BIN, else the launcher of this
 * package (bin/skillopt-sleep, which finds the installed engine), else `skillopt-sleep` on PATH.
 *
 * Install: `pi install <this directory>` (a pi package: extensions/ and skills/), or copy this
 * file to ~/.pi/agent/extensions/. pi fires session_shutdown on exit in every mode, `pi -p`
 * included.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "skillopt-sleep");

function cli(): string {
	return process.env.SKILLOPT_SLEEP_BIN || (existsSync(LAUNCHER) ? LAUNCHER : "skillopt-sleep");
}

export default function (pi: ExtensionAPI) {
	pi.on("session_shutdown", async (event, ctx) => {
		const transcript = ctx.sessionManager.getSessionFile();
		if (!transcript) return; // --no-session: nothing on disk to read
		const payload = {
			agent: "pi",
			session_id: ctx.sessionManager.getSessionId(),
			transcript_path: transcript,
			cwd: ctx.cwd,
			hook_event_name: "SessionEnd",
			reason: event.reason ?? "",
		};
		try {
			spawnSync(cli(), ["log"], {
				input: JSON.stringify(payload),
				stdio: ["pipe", "ignore", "ignore"],
				timeout: 5000,
			});
		} catch {
			// the session is the user's: a missing or broken CLI never fails it
		}
	});
}
