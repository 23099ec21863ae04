package org.nccl4j.core.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.NcclException;
import org.nccl4j.NcclSystemException;
import org.nccl4j.Result;
import org.nccl4j.core.host.HostIdentity;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.core.conn.ConnMem;

/**
 * SHM between two "processes": in one JVM the transport only compares peer infos, so two fake
 * process hashes make two processes; one test uses a real second JVM.
 */
class ShmTransportTest {
    private static final int BUFF = 8 * 1024;
    private static final long PID = ProcessHandle.current().pid();
    private static final Config DEFAULTS = StepKit.config(Map.of());

    private static List<PeerInfo> twoProcesses(long pid1) {
        return List.of(StepKit.peer(0, 7, 100, PID), StepKit.peer(1, 7, 200, pid1));
    }

    private static TransportContext ctx(int rank, List<PeerInfo> peers, long commId, int buff, Arena arena, Config c) {
        return StepKit.ctx(rank, peers, commId, c, buff, arena, null, () -> {
            throw new AssertionError("SHM needs no proxy");
        }, new AbortFlag());
    }

    private static List<Path> segments(Path dir, long commId) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().contains("-" + Long.toHexString(commId) + "-")).toList();
        }
    }

    @Test
    void theSegmentsOfAnEndedProcessAreRemovedAndNoOthers() throws Exception {
        Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        Path dead = Path.of("/dev/shm", "nccl4j-shm-send-p" + p.pid() + "-1-2-0-0-1");
        Path deadRecv = Path.of("/dev/shm", "nccl4j-shm-recv-p" + p.pid() + "-1-2-0-1-0");
        Path alive = Path.of("/dev/shm", "nccl4j-shm-send-p" + PID + "-1-2-0-0-1");
        Path longerPid = Path.of("/dev/shm", "nccl4j-shm-send-p" + p.pid() + "7-1-2-0-0-1");
        for (Path f : List.of(dead, deadRecv, alive, longerPid)) {
            Files.write(f, new byte[8]);
        }
        try {
            assertEquals(2, ShmTransport.removeSegmentsOf(p.pid()));
            assertFalse(Files.exists(dead));
            assertFalse(Files.exists(deadRecv));
            assertTrue(Files.exists(alive), "another process's segment stays");
            assertTrue(Files.exists(longerPid), "a pid that only starts with it is another process");
        } finally {
            for (Path f : List.of(dead, deadRecv, alive, longerPid)) {
                Files.deleteIfExists(f);
            }
        }
    }

    @Test
    void stepsFlowThroughDevShmAndNamesDisappearOnceConnected() throws Exception {
        long commId = ThreadLocalRandom.current().nextLong();
        Path shm = Path.of("/dev/shm");
        List<PeerInfo> peers = twoProcesses(PID);
        ShmTransport t = new ShmTransport();
        try (Arena arena = Arena.ofShared()) {
            TransportContext c0 = ctx(0, peers, commId, BUFF, arena, DEFAULTS);
            TransportContext c1 = ctx(1, peers, commId, BUFF, arena, DEFAULTS);
            assertTrue(t.canConnect(c0, 1));
            assertTrue(t.canConnect(c1, 0));

            Transport.Setup recv = t.setupRecv(c1, 3, 0);
            Transport.Setup send = t.setupSend(c0, 3, 1);
            String recvName = new String(recv.info(), StandardCharsets.UTF_8);
            // Its creator's pid, so a launcher can remove what a killed rank left (removeSegmentsOf).
            assertEquals("nccl4j-shm-recv-p" + PID + "-c8-" + Long.toHexString(commId) + "-3-0-1", recvName);
            assertEquals(ConnMem.HEADER + StepKit.buffs(BUFF).total(), Files.size(shm.resolve(recvName)));
            assertEquals(ConnMem.HEADER, Files.size(shm.resolve(new String(send.info(), StandardCharsets.UTF_8))));
            assertEquals(2, segments(shm, commId).size());

            Conn sc = t.connectSend(c0, send, recv.info());
            Conn rc = t.connectRecv(c1, recv, send.info());
            assertEquals(List.of(), segments(shm, commId), "names are unlinked once both sides mapped them");
            assertEquals("Channel 03 : 0[1000] -> 1[2000] via direct shared memory", sc.description());
            assertNull(sc.peerCheck().problem());

            // Many laps of the 8 slots, zero-byte and full steps, sender and receiver racing.
            Deadline d = Deadline.afterMillis(30_000);
            StepKit.concurrently(30_000, () -> {
                StepKit.send(sc, 3000, d);
                return null;
            }, () -> {
                StepKit.recv(rc, 3000, d);
                return null;
            });
            // A second operation continues from the persisted step counters.
            StepKit.concurrently(30_000, () -> {
                StepKit.send(sc, 37, d);
                return null;
            }, () -> {
                StepKit.recv(rc, 37, d);
                return null;
            });
            assertEquals(3037, sc.step());
            assertEquals(3037, ConnMem.counter(rc.waitHeader()));
            sc.close();
            rc.close();
        }
    }

    /**
     * A sender is let post in place only where the receiver sees the sender's own process at its
     * pid: its pid and pid namespace must hash to its process hash (not so for a container that
     * shares /dev/shm but not its pids, whose pid names another process here).
     */
    @Test
    void onlyASenderWhoseProcessIsSeenAtItsPidPostsInPlace() throws Exception {
        long comm = 0x5eedL;
        long mine = HostIdentity.hash(HostIdentity.processString().getBytes(StandardCharsets.UTF_8)) + comm;
        Process child = new ProcessBuilder("sleep", "60").start();
        try (Arena arena = Arena.ofShared()) {
            long seen = HostIdentity.hash(HostIdentity.processStringOf(child.pid()).getBytes(StandardCharsets.UTF_8))
                    + comm;
            long elsewhere = HostIdentity.hash((child.pid() + "pid:[1]").getBytes(StandardCharsets.UTF_8)) + comm;
            for (long hash : new long[] {seen, elsewhere}) {
                List<PeerInfo> peers = List.of(StepKit.peer(0, 7, mine, PID), StepKit.peer(1, 7, hash, child.pid()));
                long commId = ThreadLocalRandom.current().nextLong();
                TransportContext c0 = ctx(0, peers, commId, BUFF, arena, DEFAULTS);
                TransportContext c1 = ctx(1, peers, commId, BUFF, arena, DEFAULTS);
                assertEquals(hash == seen, ShmTransport.seesProcessOf(c0, 1));
                // Rank 0 receives from the child's rank: its header says whether that one may post in place.
                ShmTransport t = new ShmTransport();
                Transport.Setup recv = t.setupRecv(c0, 0, 1);
                Transport.Setup send = t.setupSend(c1, 0, 0);
                Conn sc = t.connectSend(c1, send, recv.info());
                Conn rc = t.connectRecv(c0, recv, send.info());
                assertEquals(hash == seen, sc.sendsInPlace(), "pid hash " + (hash == seen ? "seen" : "elsewhere"));
                sc.close();
                rc.close();
            }
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            List<PeerInfo> gone = List.of(StepKit.peer(0, 7, mine, PID), StepKit.peer(1, 7, seen, child.pid()));
            assertFalse(ShmTransport.seesProcessOf(ctx(0, gone, 1, BUFF, arena, DEFAULTS), 1), "an ended process");
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void canConnectOnlyProcessesOfOneHostAndShmDevice() {
        long commId = 1;
        try (Arena arena = Arena.ofShared()) {
            ShmTransport t = new ShmTransport();
            List<PeerInfo> two = twoProcesses(PID);
            assertTrue(t.canConnect(ctx(0, two, commId, BUFF, arena, DEFAULTS), 1));
            Config off = StepKit.config(Map.of("NCCL_SHM_DISABLE", "1"));
            assertFalse(t.canConnect(ctx(0, two, commId, BUFF, arena, off), 1));
            List<PeerInfo> sameProcess = List.of(StepKit.peer(0, 7, 100, PID), StepKit.peer(1, 7, 100, PID));
            assertFalse(t.canConnect(ctx(0, sameProcess, commId, BUFF, arena, DEFAULTS), 1), "in-process's job");
            List<PeerInfo> otherHost = List.of(StepKit.peer(0, 7, 100, PID), StepKit.peer(1, 8, 200, PID));
            assertFalse(t.canConnect(ctx(0, otherHost, commId, BUFF, arena, DEFAULTS), 1));
            PeerInfo p = StepKit.peer(1, 7, 200, PID);
            List<PeerInfo> otherShm = List.of(StepKit.peer(0, 7, 100, PID), new PeerInfo(1, 1, false, 7, 200, 43,
                    p.busId(), PID, "host", "test", "localhost"));
            assertFalse(t.canConnect(ctx(0, otherShm, commId, BUFF, arena, DEFAULTS), 1), "another /dev/shm");
        }
    }

    @Test
    void tooSmallShmFailsAtSetupWithTheFixes(@TempDir Path tmp) throws Exception {
        Path mnt = Files.createDirectories(tmp.resolve("shm"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(mount.waitFor(10, TimeUnit.SECONDS) && mount.exitValue() == 0, "cannot mount a tmpfs here: " + out);
        try (Arena arena = Arena.ofShared()) {
            ShmTransport t = new ShmTransport(mnt);
            List<PeerInfo> peers = twoProcesses(PID);
            int buff = 256 * 1024;
            TransportContext c0 = ctx(0, peers, 5, buff, arena, DEFAULTS);
            TransportContext c1 = ctx(1, peers, 5, buff, arena, DEFAULTS);

            NcclSystemException e = assertThrows(NcclSystemException.class, () -> t.setupRecv(c1, 0, 0));
            assertEquals(Result.SYSTEM_ERROR, e.result());
            String m = e.getMessage();
            for (String part : List.of("cannot allocate " + c1.recvMemSize() + " bytes", mnt.toString(), "KiB) free", "--shm-size=1g",
                    "mount -o remount,size=", "NCCL_SHM_DISABLE=1")) {
                assertTrue(m.contains(part), "'" + part + "' missing from: " + m);
            }
            assertEquals(List.of(), segments(mnt, 5), "a failed setup leaves nothing behind");

            // A send header fits; a connect that fails half-way removes it too.
            Transport.Setup send = t.setupSend(c0, 0, 1);
            assertEquals(1, segments(mnt, 5).size());
            NcclException missing = assertThrows(NcclException.class,
                    () -> t.connectSend(c0, send, "nccl4j-shm-recv-gone".getBytes(StandardCharsets.UTF_8)));
            assertEquals(Result.SYSTEM_ERROR, missing.result());
            assertTrue(missing.getMessage().contains("rank 1 not found"), missing.getMessage());
            assertEquals(List.of(), segments(mnt, 5));
        } finally {
            new ProcessBuilder("umount", mnt.toString()).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void peerNamesAndSizesAreChecked(@TempDir Path dir) throws Exception {
        try (Arena arena = Arena.ofShared()) {
            ShmTransport t = new ShmTransport(dir);
            List<PeerInfo> peers = twoProcesses(PID);
            TransportContext c0 = ctx(0, peers, 9, BUFF, arena, DEFAULTS);
            TransportContext c1 = ctx(1, peers, 9, 2 * BUFF, arena, DEFAULTS);
            Transport.Setup send = t.setupSend(c0, 0, 1);
            NcclException bad = assertThrows(NcclException.class,
                    () -> t.connectSend(c0, send, "../../etc/passwd".getBytes(StandardCharsets.UTF_8)));
            assertEquals(Result.INTERNAL_ERROR, bad.result());

            Transport.Setup send2 = t.setupSend(c0, 1, 1);
            Transport.Setup recv = t.setupRecv(c1, 1, 0);
            Conn rc = t.connectRecv(c1, recv, send2.info());
            NcclException size = assertThrows(NcclException.class, () -> t.connectSend(c0, send2, recv.info()));
            assertEquals(Result.INVALID_USAGE, size.result());
            assertTrue(size.getMessage().contains("NCCL_BUFFSIZE"), size.getMessage());
            rc.close();
            assertEquals(List.of(), segments(dir, 9), "every name is gone after failures and close");
        }
    }

    /** A real second process: it receives, this JVM sends; then its exit is noticed by the peer check. */
    @Test
    void realSecondProcessReceivesAndItsExitIsNoticed() throws Exception {
        long commId = ThreadLocalRandom.current().nextLong();
        long steps = 500;
        String sep = java.io.File.pathSeparator;
        String userDir = System.getProperty("user.dir");
        StringBuilder cp = new StringBuilder(Path.of(userDir, "target", "test-classes") + sep
                + Path.of(userDir, "target", "classes"));
        for (String key : List.of("jdk.module.path", "java.class.path")) {
            String v = System.getProperty(key);
            if (v != null && !v.isEmpty()) {
                cp.append(sep).append(v);
            }
        }
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", cp.toString(), ShmPeerMain.class.getName(),
                "/dev/shm", Long.toString(commId), Integer.toString(BUFF), Long.toString(steps), Long.toString(PID)));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        try (Arena arena = Arena.ofShared();
             BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
             Writer toChild = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
            String info = CompletableFuture.supplyAsync(() -> readUntil(in, "INFO ", output))
                    .get(30, TimeUnit.SECONDS);
            assertNotNull(info, "child said: " + output);
            List<PeerInfo> peers = twoProcesses(child.pid());
            ShmTransport t = new ShmTransport();
            TransportContext c0 = ctx(0, peers, commId, BUFF, arena, DEFAULTS);
            Transport.Setup send = t.setupSend(c0, 0, 1);
            toChild.write(new String(send.info(), StandardCharsets.UTF_8) + "\n");
            toChild.flush();
            Conn sc = t.connectSend(c0, send, info.getBytes(StandardCharsets.UTF_8));
            StepKit.send(sc, steps, Deadline.afterMillis(30_000));
            String ok = CompletableFuture.supplyAsync(() -> readUntil(in, "OK ", output)).get(30, TimeUnit.SECONDS);
            assertEquals(Long.toString(steps), ok, "child said: " + output);
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child did not exit: " + output);
            assertEquals(0, child.exitValue(), "child said: " + output);
            String problem = sc.peerCheck().problem();
            assertEquals("rank 1 (pid " + child.pid() + ") has exited", problem);
            sc.close();
            assertEquals(List.of(), segments(Path.of("/dev/shm"), commId));
        } finally {
            child.destroyForcibly();
        }
    }

    private static String readUntil(BufferedReader in, String prefix, List<String> output) {
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length());
                }
            }
            return null;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
