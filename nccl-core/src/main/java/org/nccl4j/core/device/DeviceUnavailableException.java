package org.nccl4j.core.device;

/** A device backend cannot run on this machine; the message says why (no driver, no device, ...). */
public class DeviceUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param message why the backend cannot run
     * @param cause   the underlying failure, or {@code null}
     */
    public DeviceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
