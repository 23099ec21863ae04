package org.nccl4j.core.param;

/**
 * A parameter's effective value and where it came from.
 *
 * @param param  the parameter
 * @param value  the text in effect, or {@code null} when unset
 * @param source where it came from
 * @param origin the file or property it was read from, for {@code nccl4j doctor}
 */
public record Setting(Param param, String value, Source source, String origin) {
    /** @return the value as an integer ({@link Param.Kind#INT} parameters) */
    public long asLong() {
        return IntParser.parse(param.envName(), value);
    }
}
