// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// sluicectl's exit codes: scripts may rely on them, so they never change meaning.
namespace sluice::app {

enum ExitCode : int {
    ExitOk = 0,
    ExitFailure = 1,         // Redis answered with an error, or the operation failed
    ExitUsage = 2,           // bad command line: unknown command, option or value
    ExitCannotConnect = 3,   // the server could not be reached, refused the credentials or has no functions (< 7)
    ExitTimeout = 4,         // connected, but the server did not answer in time
    ExitInvalidInput = 5,    // an input file (a policy file) is malformed or invalid; nothing changed
    ExitConflict = 6,        // someone else saved in between; nothing changed
    ExitDrift = 7,           // a primary does not run the published limiter library
    ExitRefused = 8,         // a write on a read-only profile, on a production one without --yes, or a publish
                             // that would serve no policies or drop ones in use, without --allow-empty/--allow-drop
    ExitOutcomeUnknown = 9,  // a write was sent and its answer lost: it may have been applied
    ExitChangesPending = 10, // apply --dry-run: the store differs from the file (as diff's exit 1)
    ExitRejected = 11,       // acquire: the policy rejected the call
    ExitAclOverlap = 12,     // acl check: an ACL user reaches the keys of more than one namespace
};

} // namespace sluice::app
