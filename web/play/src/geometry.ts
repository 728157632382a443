// Units and the camera. The protocol counts centimetres and 1/65536 turn counter-clockwise from
// +x, with y up; the canvas counts CSS pixels with y down, so y and angles are flipped when drawn.
import { SkillShape } from "./sdk.ts";
import type { SkillInfo } from "./sdk.ts";

export const TURN = 65536;

/** Radians (counter-clockwise from +x, y up) -> 1/65536 turn, 0..65535. */
export function facingOfAngle(rad: number): number {
  const f = Math.round((rad / (2 * Math.PI)) * TURN);
  return ((f % TURN) + TURN) % TURN;
}

/** 1/65536 turn -> radians (counter-clockwise from +x, y up). */
export function angleOfFacing(facing: number): number {
  return (facing / TURN) * 2 * Math.PI;
}

/** A top-down view centred on a world point; `scale` is CSS pixels per metre. */
export class Camera {
  cx = 0; // centre, cm
  cy = 0;
  width = 0; // CSS px
  height = 0;
  scale = 24;

  /** CSS px per centimetre. */
  get k(): number {
    return this.scale / 100;
  }
  sx(x: number): number {
    return this.width / 2 + (x - this.cx) * this.k;
  }
  sy(y: number): number {
    return this.height / 2 - (y - this.cy) * this.k;
  }
  wx(px: number): number {
    return this.cx + (px - this.width / 2) / this.k;
  }
  wy(py: number): number {
    return this.cy - (py - this.height / 2) / this.k;
  }
  /** The world rectangle on screen (cm), with a margin. */
  visible(marginCm = 0): { minX: number; minY: number; maxX: number; maxY: number } {
    return {
      minX: this.wx(0) - marginCm,
      maxX: this.wx(this.width) + marginCm,
      minY: this.wy(this.height) - marginCm,
      maxY: this.wy(0) + marginCm,
    };
  }
}

/**
 * Adds `skill`'s shape to the current path, in screen space, as the server resolves it
 * (server/zone/combat.cc): an arc sector of `range` and `half_angle` either side of facing at
 * the origin (the caster's centre); a circle of `radius` around the origin (the caster, or the
 * ground point); a line as the capsule from the origin (the caster's front) `range` long along
 * facing, `width` wide. `ox, oy` are the HitEvent's origin (cm).
 */
export function skillPath(ctx: CanvasRenderingContext2D, cam: Camera, skill: SkillInfo, ox: number, oy: number, facing: number): void {
  const x = cam.sx(ox);
  const y = cam.sy(oy);
  const k = cam.k;
  const a = -angleOfFacing(facing); // canvas angles turn the other way
  switch (skill.shape) {
    case SkillShape.ARC: {
      const half = angleOfFacing(skill.halfAngle);
      ctx.moveTo(x, y);
      ctx.arc(x, y, Math.max(1, skill.range * k), a - half, a + half);
      ctx.closePath();
      break;
    }
    case SkillShape.CIRCLE:
      ctx.moveTo(x + Math.max(1, skill.radius * k), y);
      ctx.arc(x, y, Math.max(1, skill.radius * k), 0, 2 * Math.PI);
      break;
    case SkillShape.LINE: {
      const len = skill.range * k;
      const half = Math.max(0.5, (skill.width / 2) * k);
      const ex = x + Math.cos(a) * len;
      const ey = y + Math.sin(a) * len;
      const nx = -Math.sin(a) * half;
      const ny = Math.cos(a) * half;
      ctx.moveTo(x + nx, y + ny);
      ctx.lineTo(ex + nx, ey + ny);
      ctx.arc(ex, ey, half, a + Math.PI / 2, a - Math.PI / 2, true);
      ctx.lineTo(x - nx, y - ny);
      ctx.arc(x, y, half, a - Math.PI / 2, a + Math.PI / 2, true);
      ctx.closePath();
      break;
    }
    default:
      ctx.moveTo(x + 4, y);
      ctx.arc(x, y, 4, 0, 2 * Math.PI);
      break;
  }
}

/** A short human name for a skill shape, for the skill bar's tooltip and the log. */
export function shapeName(skill: SkillInfo): string {
  switch (skill.shape) {
    case SkillShape.ARC:
      return `arc ${(skill.range / 100).toFixed(1)} m, ${Math.round((skill.halfAngle / TURN) * 720)}°`;
    case SkillShape.CIRCLE:
      return skill.castRange > 0
        ? `ground circle r ${(skill.radius / 100).toFixed(1)} m at up to ${(skill.castRange / 100).toFixed(0)} m`
        : `circle r ${(skill.radius / 100).toFixed(1)} m`;
    case SkillShape.LINE:
      return `line ${(skill.range / 100).toFixed(1)} x ${(skill.width / 100).toFixed(1)} m`;
    default:
      return "?";
  }
}
