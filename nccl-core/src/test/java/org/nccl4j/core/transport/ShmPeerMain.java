package org.nccl4j.core.transport;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;

/**
 * The second process of {@link ShmTransportTest}: rank 1, receiving. Prints {@code INFO <name>}
 * of its receive segment, reads the sender's segment name from stdin, receives and checks the
 * steps, prints {@code OK <steps>}.
 */
public final class ShmPeerMain {
    private ShmPeerMain() {
    }

    /**
     * @param args shm directory, communicator id, buffer size, steps, the parent's pid
     * @throws Exception on failure (exit code 1)
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long commId = Long.parseLong(args[1]);
        int buff = Integer.parseInt(args[2]);
        long steps = Long.parseLong(args[3]);
        long parent = Long.parseLong(args[4]);
        List<PeerInfo> peers = List.of(StepKit.peer(0, 7, 100, parent),
                StepKit.peer(1, 7, 200, ProcessHandle.current().pid()));
        try (Arena arena = Arena.ofShared()) {
            ShmTransport t = new ShmTransport(dir);
            TransportContext ctx = new TransportContext(1, peers, commId, StepKit.config(java.util.Map.of()), StepKit.buffs(buff), arena,
                    null, () -> null, new AbortFlag());
            Transport.Setup recv = t.setupRecv(ctx, 0, 0);
            System.out.println("INFO " + new String(recv.info(), StandardCharsets.UTF_8));
            System.out.flush();
            String sendName = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            Conn c = t.connectRecv(ctx, recv, sendName.getBytes(StandardCharsets.UTF_8));
            StepKit.recv(c, steps, Deadline.afterMillis(30_000));
            System.out.println("OK " + steps);
            c.close();
        }
    }
}
