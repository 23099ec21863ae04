package org.nccl4j.core.transport;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.host.HostIdentity;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.shm.PeerMappings;
import org.nccl4j.core.shm.SharedMemory;
import org.nccl4j.core.shm.ShmSegment;

/**
 * Processes of one host connect through files under {@code /dev/shm} that both map
 * ({@code "SHM"}, NCCL's {@code shm.cc}). The receiver creates
 * {@code nccl4j-shm-recv-<pidHash>-<commId>-<channel>-<send>-<recv>}: a receive header and the
 * LL, LL128 and Simple buffers; the sender creates {@code nccl4j-shm-send-...}: a send header holding the credit
 * counter. Each side maps the other's file and removes its name (NCCL's {@code shm_unlink}
 * after {@code mmap}), so nothing stays in {@code /dev/shm} once both sides are connected. The
 * connections are wired exactly like {@link InProcessTransport}'s: the sender writes into the
 * receiver's memory and waits on its own header.
 *
 * <p>A receiver that sees its sender's process ({@link #seesProcessOf}) and can open its
 * descriptors ({@link PeerMappings#canOpen}) says so in its header before the sender connects:
 * the sender then posts a Simple step whose data lies in its {@link SharedMemory} as a place
 * there, and the receiver reads it in place (one copy less per step, as NCCL's registered user
 * buffers).
 */
public final class ShmTransport implements Transport {
    private static final String PREFIX = "nccl4j-shm-";

    private final Path dir;

    /** A transport over {@code /dev/shm}. */
    public ShmTransport() {
        this(Path.of("/dev/shm"));
    }

    /**
     * @param dir where segments are created (tests use a small tmpfs of their own)
     */
    ShmTransport(Path dir) {
        this.dir = dir;
    }

    @Override
    public String name() {
        return "SHM";
    }

    /**
     * Same host, same {@code /dev/shm}, different processes (one process is
     * {@link InProcessTransport}'s), unless {@code NCCL_SHM_DISABLE=1}.
     */
    @Override
    public boolean canConnect(TransportContext ctx, int peer) {
        if (ctx.config().integer(Params.SHM_DISABLE) == 1) {
            return false;
        }
        PeerInfo me = ctx.me();
        PeerInfo p = ctx.peers().get(peer);
        return me.hostHash() == p.hostHash() && me.shmDev() == p.shmDev() && me.pidHash() != p.pidHash();
    }

    /** This side's file and its mapping. */
    private record Side(Path path, MemorySegment mem) {
    }

    private String fileName(TransportContext ctx, String kind, int channel, int send, int recv) {
        return String.format("%s%s-p%d-%x-%x-%d-%d-%d", PREFIX, kind, ctx.me().pid(), ctx.me().pidHash(), ctx.commId(),
                channel, send, recv);
    }

    /**
     * Removes the segment names a process created and never saw mapped: a rank killed between
     * creating its segments and its peers mapping them cannot remove them itself. For whoever
     * knows the process has ended (its launcher).
     *
     * @param pid a process that has ended
     * @return how many names were removed
     */
    public static int removeSegmentsOf(long pid) {
        String mine = "-p" + pid + "-";
        int n = 0;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(Path.of("/dev/shm"))) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.startsWith(PREFIX) && name.contains(mine)) {
                    ShmSegment.delete(f);
                    n++;
                }
            }
        } catch (java.io.IOException e) {
            // No /dev/shm: nothing was created there.
        }
        return n;
    }

    private Setup setup(TransportContext ctx, int channel, int peer, String name, long size) {
        Path path = dir.resolve(name);
        MemorySegment mem = ShmSegment.create(path, size, ctx.arena());
        return new Setup(channel, peer, name.getBytes(StandardCharsets.UTF_8), new Side(path, mem));
    }

    /** Creates this sender's header segment ({@code ncclSendMem}). */
    @Override
    public Setup setupSend(TransportContext ctx, int channel, int peer) {
        return setup(ctx, channel, peer, fileName(ctx, "send", channel, ctx.rank(), peer), ConnMem.HEADER);
    }

    /** Creates this receiver's header and protocol buffers ({@code ncclRecvMem}). */
    @Override
    public Setup setupRecv(TransportContext ctx, int channel, int peer) {
        Setup s = setup(ctx, channel, peer, fileName(ctx, "recv", channel, peer, ctx.rank()), ctx.recvMemSize());
        long pid = ctx.peers().get(peer).pid();
        boolean sees = seesProcessOf(ctx, peer);
        boolean ok = sees && PeerMappings.canOpen(pid);
        if (!ok) {
            Log.info(Subsys.SHM, "channel %d: rank %d's steps are copied through the slots, not read in place (%s)",
                    channel, peer, sees ? "cannot open /proc/" + pid + "/fd: another user?"
                            : "/proc/" + pid + " is not its process here: another pid namespace?");
        }
        ConnMem.setInPlaceOk(((Side) s.state()).mem(), ok);
        return s;
    }

    /**
     * Whether {@code /proc/<pid>} here is the peer's process: the pid and pid namespace it shows
     * hash to the peer's process hash. Containers that share {@code /dev/shm} but not their pids
     * fail it (their pid names another process here, maybe this one).
     */
    static boolean seesProcessOf(TransportContext ctx, int peer) {
        PeerInfo p = ctx.peers().get(peer);
        String seen = HostIdentity.processStringOf(p.pid());
        // Both process hashes carry the same communicator hash on top of their text's hash.
        long commHash = ctx.me().pidHash() - hash(HostIdentity.processString());
        return seen != null && p.pidHash() == hash(seen) + commHash;
    }

    private static long hash(String s) {
        return HostIdentity.hash(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Maps the receiver's segment: the sender writes its buffer and publishes its tail. */
    @Override
    public Conn connectSend(TransportContext ctx, Setup mine, byte[] peerInfo) {
        Side own = (Side) mine.state();
        String desc = ChannelLine.of(ctx, mine.channel(), ctx.rank(), mine.peer(), "", "direct shared memory");
        try {
            MemorySegment peerRecv = attachPeer(ctx, mine.peer(), peerInfo, ctx.recvMemSize());
            Conn c = new Conn(desc, peerRecv.asSlice(ConnMem.HEADER), ctx.buffs(), peerRecv, own.mem(),
                    peerCheck(ctx, mine.peer()), null, () -> ShmSegment.delete(own.path()));
            if (ConnMem.inPlaceOk(peerRecv)) {
                c.sendInPlace(false);
            }
            return c;
        } catch (RuntimeException e) {
            ShmSegment.delete(own.path());
            throw e;
        }
    }

    /** Maps the sender's header: the receiver returns credit there. */
    @Override
    public Conn connectRecv(TransportContext ctx, Setup mine, byte[] peerInfo) {
        Side own = (Side) mine.state();
        String desc = ChannelLine.of(ctx, mine.channel(), mine.peer(), ctx.rank(), "", "direct shared memory");
        try {
            MemorySegment peerSend = attachPeer(ctx, mine.peer(), peerInfo, ConnMem.HEADER);
            Conn c = new Conn(desc, own.mem().asSlice(ConnMem.HEADER), ctx.buffs(), peerSend, own.mem(),
                    peerCheck(ctx, mine.peer()), null, () -> ShmSegment.delete(own.path()));
            if (ConnMem.inPlaceOk(own.mem())) {
                c.readInPlace(new PeerMappings(ctx.peers().get(mine.peer()).pid(), "rank " + mine.peer()));
            }
            return c;
        } catch (RuntimeException e) {
            ShmSegment.delete(own.path());
            throw e;
        }
    }

    private MemorySegment attachPeer(TransportContext ctx, int peer, byte[] info, long size) {
        String name = new String(info, StandardCharsets.UTF_8);
        // The name comes from another process: accept only our own segment names, never a path.
        if (!name.startsWith(PREFIX) || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw NcclException.of(Result.INTERNAL_ERROR, "rank " + peer + " sent an invalid SHM segment name '" + name
                    + "'", "every rank must run the same nccl4j version");
        }
        Path path = dir.resolve(name);
        MemorySegment mem = ShmSegment.attach(path, size, ctx.arena(), "rank " + peer);
        // Both sides have it mapped now; the name is no longer needed (NCCL: shm_unlink).
        ShmSegment.delete(path);
        return mem;
    }

    private static PeerCheck peerCheck(TransportContext ctx, int peer) {
        return PeerCheck.process(ctx.peers().get(peer).pid(), "rank " + peer);
    }
}
