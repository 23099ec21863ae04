package org.nccl4j.examples.train;

import java.util.Random;

/**
 * The classic interleaved-spirals classification set: {@code classes} arms in the plane, one per
 * class, with a little noise. Not linearly separable, so the hidden layers have to earn their
 * keep; deterministic for a seed, so every rank builds the same set without exchanging it.
 *
 * @param x       coordinates, two per sample
 * @param y       class of each sample
 * @param classes number of classes
 */
public record Spiral(float[] x, int[] y, int classes) {
    /** Inputs per sample. */
    public static final int FEATURES = 2;
    /** How many times each arm winds around the centre: more turns, harder to separate. */
    private static final double TURNS = 1.25;
    /** Standard deviation of the angle's noise, in radians. */
    private static final double NOISE = 0.15;

    /**
     * @param samples number of samples (spread over the classes)
     * @param classes number of arms
     * @param seed    random seed
     * @return the data set, samples in a seeded random order
     */
    public static Spiral generate(int samples, int classes, long seed) {
        Random rnd = new Random(seed);
        float[] x = new float[samples * FEATURES];
        int[] y = new int[samples];
        int perClass = (samples + classes - 1) / classes;
        for (int i = 0; i < samples; i++) {
            int k = i % classes;
            double r = (double) (i / classes + 1) / perClass;                 // radius 0..1 along the arm
            double t = 2 * Math.PI * (TURNS * r + (double) k / classes) + NOISE * rnd.nextGaussian();
            x[2 * i] = (float) (r * Math.sin(t));
            x[2 * i + 1] = (float) (r * Math.cos(t));
            y[i] = k;
        }
        shuffle(x, y, rnd);
        return new Spiral(x, y, classes);
    }

    /** @return number of samples */
    public int size() {
        return y.length;
    }

    private static void shuffle(float[] x, int[] y, Random rnd) {
        for (int i = y.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int ty = y[i];
            y[i] = y[j];
            y[j] = ty;
            for (int f = 0; f < FEATURES; f++) {
                float tx = x[FEATURES * i + f];
                x[FEATURES * i + f] = x[FEATURES * j + f];
                x[FEATURES * j + f] = tx;
            }
        }
    }
}
