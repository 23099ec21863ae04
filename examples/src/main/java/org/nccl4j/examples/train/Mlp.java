package org.nccl4j.examples.train;

import java.util.Random;

/**
 * A multi-layer perceptron with ReLU hidden layers and a softmax cross-entropy head, in plain
 * float loops. All parameters live in one flat array (per layer: the weight matrix, row-major
 * out x in, then the biases) so that the gradient is one buffer and one AllReduce per step.
 *
 * <p>An instance holds only scratch space for one sample; parameters and gradients are passed in.
 * Not thread-safe: one instance per rank.
 */
public final class Mlp {
    private final int[] dims;
    private final int[] wOff;
    private final int[] bOff;
    private final int paramCount;
    private final float[][] act;
    private final float[][] delta;
    private int lastPrediction;

    /**
     * @param dims layer widths, inputs first, classes last, e.g. {@code {2, 64, 64, 3}}
     */
    public Mlp(int... dims) {
        if (dims.length < 2) {
            throw new IllegalArgumentException("an MLP needs at least an input and an output width");
        }
        this.dims = dims.clone();
        int layers = dims.length - 1;
        wOff = new int[layers];
        bOff = new int[layers];
        int off = 0;
        for (int l = 0; l < layers; l++) {
            wOff[l] = off;
            off += dims[l + 1] * dims[l];
            bOff[l] = off;
            off += dims[l + 1];
        }
        paramCount = off;
        act = new float[dims.length][];
        delta = new float[dims.length][];
        for (int l = 0; l < dims.length; l++) {
            act[l] = new float[dims[l]];
            delta[l] = new float[dims[l]];
        }
    }

    /** @return number of parameters (the length of the parameter and gradient arrays) */
    public int paramCount() {
        return paramCount;
    }

    /**
     * He initialisation (normal, variance 2/fan-in) of the weights, zero biases.
     *
     * @param params the parameters to fill
     * @param seed   random seed; the same seed gives the same bits on every rank
     */
    public void init(float[] params, long seed) {
        Random rnd = new Random(seed);
        java.util.Arrays.fill(params, 0f);
        for (int l = 0; l < wOff.length; l++) {
            double std = Math.sqrt(2.0 / dims[l]);
            for (int i = 0; i < dims[l + 1] * dims[l]; i++) {
                params[wOff[l] + i] = (float) (rnd.nextGaussian() * std);
            }
        }
    }

    /**
     * Forward and backward pass of one sample: adds {@code scale} times the gradient of its loss
     * to {@code grad}.
     *
     * @param params parameters
     * @param x      inputs
     * @param xOff   where this sample's inputs start in {@code x}
     * @param label  its class
     * @param grad   gradient accumulator, same layout as {@code params}
     * @param scale  weight of this sample (1 / batch size for a mean)
     * @return the sample's cross-entropy loss
     */
    public double accumulate(float[] params, float[] x, int xOff, int label, float[] grad, float scale) {
        double loss = forward(params, x, xOff, label);
        int last = dims.length - 1;
        float[] p = act[last]; // softmax probabilities after forward
        for (int k = 0; k < dims[last]; k++) {
            delta[last][k] = (p[k] - (k == label ? 1f : 0f)) * scale;
        }
        for (int l = last - 1; l >= 0; l--) {
            int in = dims[l];
            int out = dims[l + 1];
            float[] a = act[l];
            float[] d = delta[l + 1];
            for (int o = 0; o < out; o++) {
                float dz = d[o];
                int row = wOff[l] + o * in;
                for (int i = 0; i < in; i++) {
                    grad[row + i] += dz * a[i];
                }
                grad[bOff[l] + o] += dz;
            }
            if (l > 0) { // back through the weights and the ReLU
                float[] prev = delta[l];
                java.util.Arrays.fill(prev, 0f);
                for (int o = 0; o < out; o++) {
                    float dz = d[o];
                    int row = wOff[l] + o * in;
                    for (int i = 0; i < in; i++) {
                        prev[i] += params[row + i] * dz;
                    }
                }
                for (int i = 0; i < in; i++) {
                    if (a[i] <= 0f) {
                        prev[i] = 0f;
                    }
                }
            }
        }
        return loss;
    }

    /**
     * Forward pass of one sample.
     *
     * @param params parameters
     * @param x      inputs
     * @param xOff   where this sample's inputs start
     * @param label  its class
     * @return its cross-entropy loss; {@link #lastPrediction()} is then its predicted class
     */
    public double forward(float[] params, float[] x, int xOff, int label) {
        System.arraycopy(x, xOff, act[0], 0, dims[0]);
        int last = dims.length - 1;
        for (int l = 0; l < last; l++) {
            int in = dims[l];
            float[] a = act[l];
            float[] z = act[l + 1];
            for (int o = 0; o < dims[l + 1]; o++) {
                float sum = params[bOff[l] + o];
                int row = wOff[l] + o * in;
                for (int i = 0; i < in; i++) {
                    sum += params[row + i] * a[i];
                }
                z[o] = l + 1 < last ? Math.max(sum, 0f) : sum;
            }
        }
        // Softmax in place, shifted by the maximum logit so exp cannot overflow.
        float[] z = act[last];
        int best = 0;
        for (int k = 1; k < z.length; k++) {
            if (z[k] > z[best]) {
                best = k;
            }
        }
        lastPrediction = best;
        float max = z[best];
        double sum = 0;
        for (int k = 0; k < z.length; k++) {
            z[k] = (float) Math.exp(z[k] - max);
            sum += z[k];
        }
        for (int k = 0; k < z.length; k++) {
            z[k] = (float) (z[k] / sum);
        }
        return -Math.log(Math.max(z[label], 1e-30f));
    }

    /** @return the class the last {@link #forward} or {@link #accumulate} predicted */
    public int lastPrediction() {
        return lastPrediction;
    }
}
