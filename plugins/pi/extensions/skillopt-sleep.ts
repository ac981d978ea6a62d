/**
 * skillopt-sleep for pi: when a session ends, hand it to the skillopt-sleep task log.
 *
 * A thin shell: it only calls the CLI, `skillopt-sleep log`, with the hook JSON on stdin
 * ({"agent": "pi", "session_id", "transcript_path", "cwd", "hook_event_name": "SessionEnd",
 * "reason"}), and never fails or delays the session for it (the CLI returns at once and reads
 * the session in the background). SKILLOPT_SLEEP_BIN names the CLI when it is not on PATH.
 *
 * Install: copy this file to ~/.pi/agent/extensions/ (or a project's .pi/extensions/).
 * pi fires session_shutdown on exit in every mode, `pi -p` included.
 */
import { spawnSync } from "node:child_process";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

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
			spawnSync(process.env.SKILLOPT_SLEEP_BIN || "skillopt-sleep", ["log"], {
				input: JSON.stringify(payload),
				stdio: ["pipe", "ignore", "ignore"],
				timeout: 5000,
			});
		} catch {
			// the session is the user's: a missing or broken CLI never fails it
		}
	});
}
