// SPDX-License-Identifier: GPL-2.0
// Byte for byte against HdrHistogram's own encoder: for every histogram line
// of a .hlog, the compressed cookie and length, then the inflated V2 bytes
// (header and ZigZag LEB128 counts) must equal what Java's
// encodeIntoByteBuffer writes for the histogram Java decoded from the line.
// Prints "same <n>", or "differs <line> ours <hex> java <hex>" per line
// that differs (exit 1). Run as a single-file program:
//   java -cp /usr/share/java/hdrhistogram.jar HlogBytes.java FILE
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.zip.Inflater;
import org.HdrHistogram.Histogram;

public class HlogBytes {
	public static void main(String[] args) throws Exception {
		int same = 0, bad = 0, n = 0;

		for (String line : Files.readAllLines(Paths.get(args[0]))) {
			n++;
			if (!line.startsWith("Tag="))
				continue;
			String[] f = line.split(",");
			byte[] comp = Base64.getDecoder().decode(f[f.length - 1]);
			ByteBuffer cb = ByteBuffer.wrap(comp);
			byte[] ours = new byte[1 << 20];
			int len = 0;

			if (cb.getInt(0) == 0x1c849314 && cb.getInt(4) == comp.length - 8) {
				Inflater inf = new Inflater();
				inf.setInput(comp, 8, comp.length - 8);
				len = inf.inflate(ours);
				if (!inf.finished())
					len = 0;
				inf.end();
			}
			Histogram h = Histogram.decodeFromCompressedByteBuffer(cb, 0);
			ByteBuffer jb = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
			int jlen = h.encodeIntoByteBuffer(jb);
			byte[] java = Arrays.copyOf(jb.array(), jlen);

			if (Arrays.equals(Arrays.copyOf(ours, len), java)) {
				same++;
				continue;
			}
			bad++;
			HexFormat hex = HexFormat.of();
			System.out.printf("differs %d ours %s java %s%n", n,
					  hex.formatHex(ours, 0, Math.min(len, 64)),
					  hex.formatHex(java, 0, Math.min(jlen, 64)));
		}
		System.out.printf("same %d%n", same);
		System.exit(bad == 0 ? 0 : 1);
	}
}
