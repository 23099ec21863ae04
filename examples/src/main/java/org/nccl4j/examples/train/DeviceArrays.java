package org.nccl4j.examples.train;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.RedOp;
import org.nccl4j.Stream;
import org.nccl4j.examples.staging.StagedBuffer;

/**
 * {@link ArrayCollectives} on device memory: each call copies the array into one device buffer
 * allocated at start, runs the collective there in place on a stream of the communicator, waits,
 * and copies the result back. The model's math stays on the CPU; only the gradients (and the
 * initial weights and the loss statistics) travel through GPU memory. The reduction is the one
 * the host path asks for (AVG of the gradients), so every rank receives the same bits.
 */
final class DeviceArrays implements ArrayCollectives {
    private final Communicator comm;
    private final Arena arena = Arena.ofShared();
    private final StagedBuffer buffer;
    private final Stream stream;

    /**
     * @param comm     a communicator of a device backend
     * @param maxBytes the largest array any call passes, in bytes
     */
    DeviceArrays(Communicator comm, long maxBytes) {
        this.comm = comm;
        this.buffer = StagedBuffer.allocate(comm, true, false, Math.max(8, maxBytes), arena);
        this.stream = comm.createStream();
    }

    @Override
    public void broadcast(float[] data, int root) {
        inPlace(data, ValueLayout.JAVA_FLOAT, data.length, d -> comm.broadcast(d, d, data.length, DataType.FLOAT32, root,
                stream));
    }

    @Override
    public void allReduce(float[] data, RedOp op) {
        inPlace(data, ValueLayout.JAVA_FLOAT, data.length, d -> comm.allReduce(d, d, data.length, DataType.FLOAT32, op,
                stream));
    }

    @Override
    public void allReduce(double[] data, RedOp op) {
        inPlace(data, ValueLayout.JAVA_DOUBLE, data.length, d -> comm.allReduce(d, d, data.length, DataType.FLOAT64, op,
                stream));
    }

    /**
     * Copies {@code length} elements of {@code array} to the device, runs {@code collective} in
     * place on them, waits for it on the stream and copies the result back into {@code array}.
     */
    private void inPlace(Object array, ValueLayout layout, int length, Consumer<DeviceBuffer> collective) {
        long bytes = length * layout.byteSize();
        MemorySegment.copy(array, 0, buffer.host(), layout, 0, length);
        buffer.push(0, bytes);
        collective.accept(buffer.device().slice(0, bytes));
        stream.synchronize();
        buffer.pull(0, bytes);
        MemorySegment.copy(buffer.host(), layout, 0, array, 0, length);
    }

    @Override
    public void close() {
        stream.close();
        buffer.close();
        arena.close();
    }
}
