// Table screenshots as test artifacts, each checked to be "not blank": a real
// PNG of some size whose pixels vary (decoded in the browser via <canvas>).

import fs from 'node:fs/promises';
import path from 'node:path';

export async function saveAndCheckScreenshot(browser, page, dir, name, { fullPage = true } = {}) {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  const png = await page.screenshot({ path: file, fullPage });
  const stats = await pixelStats(browser, png);
  const problems = [];
  if (png.length < 8000) problems.push(`only ${png.length} bytes`);
  if (stats.stddev < 12) problems.push(`luminance std-dev ${stats.stddev.toFixed(1)} (flat image)`);
  if (stats.colors < 24) problems.push(`only ${stats.colors} distinct colours`);
  if (problems.length) throw new Error(`screenshot ${file} looks blank: ${problems.join(', ')}`);
  return { file, bytes: png.length, ...stats };
}

async function pixelStats(browser, png) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    return await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const g = canvas.getContext('2d');
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0, sum = 0, sum2 = 0;
      const colors = new Set();
      const step = 4 * 7; // every 7th pixel is plenty
      for (let i = 0; i < data.length; i += step) {
        const y = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
        n++; sum += y; sum2 += y * y;
        if (colors.size < 5000) colors.add((data[i] >> 3) << 10 | (data[i + 1] >> 3) << 5 | (data[i + 2] >> 3));
      }
      const mean = sum / n;
      return { width: canvas.width, height: canvas.height, mean, stddev: Math.sqrt(Math.max(0, sum2 / n - mean * mean)), colors: colors.size };
    }, png.toString('base64'));
  } finally {
    await context.close();
  }
}
