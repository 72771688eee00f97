// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/owned_process.h"

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace sluice::test {

void endWithThisProcess(QProcess &process)
{
    const pid_t ownerPid = ::getpid();
    process.setChildProcessModifier([ownerPid] {
        // In the child between fork and exec.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != ownerPid)
            ::_exit(1); // the owner was already gone before the line above
    });
}

} // namespace sluice::test
