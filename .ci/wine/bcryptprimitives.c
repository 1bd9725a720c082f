/* For the Windows smoke run under Wine only (.ci/windows-smoke.sh). Rust's standard library
 * takes its random bytes from ProcessPrng in bcryptprimitives.dll, which every Windows
 * since 10 has but Debian 12's Wine 8 does not. This stand-in answers ProcessPrng from
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has. It is never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
